import { shapeTask } from '../../../../../../nodes/DocumentExtraction/actions/common/taskStatus';
import { task } from '../../../../helpers/fixtures';

describe('shapeTask', () => {
	it('gives the result fields of a complete task for Result Only', () => {
		expect(shapeTask(task('complete', { result: { total: 9 } }), 'result')).toEqual({ total: 9 });
	});

	it('wraps a result that is not an object', () => {
		expect(shapeTask(task('complete', { result: [1, 2] }), 'result')).toEqual({ result: [1, 2] });
		expect(shapeTask(task('complete', { result: undefined }), 'result')).toEqual({ result: null });
	});

	it('gives the whole task for Full Task, and for a task that is not complete', () => {
		const complete = task('complete', { result: { total: 9 } });
		expect(shapeTask(complete, 'full')).toBe(complete);
		const failed = task('failed', { error: 'Unreadable' });
		expect(shapeTask(failed, 'result')).toBe(failed);
	});
});
