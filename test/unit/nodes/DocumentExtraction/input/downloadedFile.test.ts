import { describeDownload } from '../../../../../nodes/DocumentExtraction/input/downloadedFile';

describe('file name and MIME type', () => {
	it.each([
		['attachment; filename="a b.pdf"', 'a b.pdf'],
		['attachment; filename=plain.pdf', 'plain.pdf'],
		['attachment; filename="x.pdf"; filename*=UTF-8\'\'Rechnung%20%C3%BC.pdf', 'Rechnung ü.pdf'],
		['attachment; filename="../../etc/evil.pdf"', 'evil.pdf'],
		['inline', 'from-the-url.pdf'],
	])('Content-Disposition %p gives %p', (header, name) => {
		expect(
			describeDownload(new URL('https://x.test/from-the-url.pdf'), {
				'content-disposition': header,
			}).fileName,
		).toBe(name);
	});

	it.each([
		['https://h/a.pdf', 'application/octet-stream', 'application/pdf'],
		['https://h/b.jpg', '', 'image/jpeg'],
		['https://h/blob', 'application/octet-stream', 'application/octet-stream'],
	])('judges %s sent as %p by its name: %p', (url, type, mimeType) => {
		expect(describeDownload(new URL(url), { 'content-type': type }).mimeType).toBe(mimeType);
	});

	it('adds an extension from the type when the name has none', () => {
		expect(
			describeDownload(new URL('https://h/doc/42'), { 'content-type': 'application/pdf' }),
		).toEqual({ fileName: '42.pdf', mimeType: 'application/pdf', declaredType: 'application/pdf' });
		expect(describeDownload(new URL('https://h/'), { 'content-type': 'image/jpeg' }).fileName).toBe(
			'document.jpg',
		);
	});
});
