import { formatValidationDetail } from '../../../../nodes/shared/messages';

describe('formatValidationDetail', () => {
	it('formats validation details of any shape', () => {
		expect(formatValidationDetail([{ loc: ['body', 'file_base64'], msg: 'invalid base64' }])).toBe(
			'file_base64: invalid base64',
		);
		expect(formatValidationDetail('plain text')).toBe('plain text');
		expect(formatValidationDetail({ field: 'x' })).toBe('{"field":"x"}');
	});
});
