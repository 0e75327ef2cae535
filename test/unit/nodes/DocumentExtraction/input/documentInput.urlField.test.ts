import { MESSAGES } from '../../../../../nodes/DocumentExtraction/messages';
import { readUrlField } from '../../../../../nodes/DocumentExtraction/input/documentInput';
import { createContext } from '../../../helpers/context';

describe('readUrlField (Document URL)', () => {
	const ctx = createContext({ params: {} });
	const parseDocumentUrl = (raw: unknown) =>
		readUrlField.call(ctx, raw, 0, MESSAGES.documentUrlField);
	it.each(['ftp://example.com/a.pdf', 'file:///etc/passwd', 'example.com/a.pdf', 'not a url', ''])(
		'refuses %p',
		(raw) => {
			expect(() => parseDocumentUrl(raw)).toThrow(
				raw ? /is not an http\(s\) URL/ : /No document URL given/,
			);
		},
	);

	it('accepts http and https addresses', () => {
		expect(parseDocumentUrl(' https://example.com/a.pdf ').href).toBe('https://example.com/a.pdf');
		expect(parseDocumentUrl('http://127.0.0.1:8080/x').port).toBe('8080');
	});
});
