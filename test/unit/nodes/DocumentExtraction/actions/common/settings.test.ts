import { numberOptionOr } from '../../../../../../nodes/DocumentExtraction/actions/common/settings';
import { createContext } from '../../../../helpers/context';

const ctx = (continueOnFail = false) => createContext({ params: {}, continueOnFail });

describe('numberOptionOr', () => {
	const spec = { name: 'maxPages', label: 'Max Pages', itemIndex: 2, fallback: 7 };

	it('reads a set option and leaves an unset one to the fallback', () => {
		expect(numberOptionOr.call(ctx(), { maxPages: 3 }, spec)).toBe(3);
		expect(numberOptionOr.call(ctx(), { maxPages: '' }, spec)).toBe(7);
		expect(numberOptionOr.call(ctx(), {}, spec)).toBe(7);
	});

	it('refuses a value below the minimum', () => {
		expect(() => numberOptionOr.call(ctx(), { maxPages: 0 }, spec)).toThrow(
			'Max Pages must be a number of at least 1',
		);
		expect(() => numberOptionOr.call(ctx(), { maxPages: 1 }, { ...spec, minimum: 2 })).toThrow(
			'Max Pages must be a number of at least 2',
		);
	});

	it('refuses a fraction only when whole numbers are asked for', () => {
		expect(numberOptionOr.call(ctx(), { maxPages: 1.5 }, spec)).toBe(1.5);
		expect(() => numberOptionOr.call(ctx(), { maxPages: 1.5 }, { ...spec, integer: true })).toThrow(
			'Max Pages must be a whole number',
		);
	});
});
