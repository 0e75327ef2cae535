import { numberOption } from '../../../../../../nodes/DocumentExtraction/actions/common/settings';
import { createContext } from '../../../../helpers/context';

describe('numberOption', () => {
	const read = (value: unknown, extra: { minimum?: number; integer?: boolean } = {}) =>
		numberOption.call(
			createContext({ params: {} }),
			{ maxPages: value as number },
			{ name: 'maxPages', label: 'Max Pages', itemIndex: 2, ...extra },
		);

	it.each([
		[3, {}, 3],
		['', {}, undefined],
		[undefined, {}, undefined],
		[1.5, {}, 1.5],
	])('reads %p (%j) as %p', (value, extra, expected) => {
		expect(read(value, extra)).toBe(expected);
	});

	it.each([
		[0, {}, 'Max Pages must be a number of at least 1'],
		[1, { minimum: 2 }, 'Max Pages must be a number of at least 2'],
		[1.5, { integer: true }, 'Max Pages must be a whole number'],
	])('refuses %p (%j): %s', (value, extra, message) => {
		expect(() => read(value, extra)).toThrow(message);
	});
});
