import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	asNodeError,
	errorDetail,
	failureKind,
	mayPass,
	nodeError,
	ServiceError,
} from '../../../../../nodes/shared/transport/errors';
import { CancelledError } from '../../../../../nodes/shared/wait';
import { explain } from '../../../../../nodes/shared/explain';
import { createContext } from '../../../helpers/context';

/** Reading an error: its kind, whether it may pass, and what an error item carries. */

const ctx = () => createContext({ params: {} });
const node = () => ctx().getNode();

it('a failure is the NodeApiError n8n shows, with its kind where n8n stores it', () => {
	const error = new ServiceError(node(), { kind: 'not_found', status: 404, detail: 'gone' });
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.name).toBe('NodeApiError');
	expect(JSON.parse(JSON.stringify(error)).context.kind).toBe('not_found');
});

it('only a 5xx, no answer, 429 or no time left may pass', () => {
	const kinds = [
		'refused',
		'not_found',
		'service_failed',
		'no_answer',
		'may_have_arrived',
		'rate_limited',
		'out_of_time',
		'stopped',
	] as const;
	const passing = kinds.filter((kind) => mayPass(new ServiceError(node(), { kind })));
	expect(passing).toEqual(['service_failed', 'no_answer', 'rate_limited', 'out_of_time']);
	expect(mayPass(new NodeApiError(node(), { status: 503 }))).toBe(false);
});

it('failureKind reads the kind an error carries, and calls any other error unexpected', () => {
	expect(failureKind(new Error('x'))).toBe('unexpected');
	expect(failureKind(new NodeOperationError(node(), 'x'))).toBe('unexpected');
	expect(failureKind(nodeError(ctx(), 'invalid_input', 'x'))).toBe('invalid_input');
});

it('errorDetail gives the status and the detail as the service sent them', () => {
	const detail = [{ loc: ['body', 'project'], msg: 'field required' }];
	const refused = new ServiceError(node(), { kind: 'refused', status: 422, detail });
	refused.message = 'invalid';
	expect(errorDetail(refused)).toEqual({
		message: 'invalid',
		kind: 'refused',
		httpCode: 422,
		detail,
	});
	const stopped = explain(new ServiceError(node(), { kind: 'stopped' }));
	expect(errorDetail(stopped)).toEqual({ message: 'The execution was stopped', kind: 'stopped' });
	expect(errorDetail(new Error('plain'))).toEqual({ message: 'plain', kind: 'unexpected' });
});

it('asNodeError keeps n8n errors, turns a stop into a stopped error and anything else into its message', () => {
	const api = new NodeApiError(node(), { status: 500 });
	expect(asNodeError(ctx(), api, 0)).toBe(api);
	expect(failureKind(asNodeError(ctx(), new CancelledError(), 0))).toBe('stopped');
	const other = asNodeError(ctx(), Object.assign(new Error('boom'), { config: 'secret' }), 2);
	expect(other).toBeInstanceOf(NodeOperationError);
	expect(other.message).toBe('boom');
	expect(JSON.stringify(other)).not.toContain('secret');
	expect(other.context.kind).toBe('unexpected');
});
