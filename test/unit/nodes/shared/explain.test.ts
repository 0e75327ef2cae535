import { ServiceError } from '../../../../nodes/shared/transport/errors';
import { explain, type About } from '../../../../nodes/shared/explain';
import { webhookRequest } from '../../../../nodes/shared/projects';
import { MESSAGES } from '../../../../nodes/DocumentExtraction/messages';
import { node } from '../../helpers/context';
import WORDING from './explain.table.json';

// The words of every failure of a request, as a pure table: kind, facts and `about` in, message,
// description and kind out. The table is the wording as released; a change to it is a change of
// what users and their error workflows read.

const fields = { project: 'Invoices', document_type: 'invoice' };
const ABOUT: Record<string, About> = {
	none: {},
	document: MESSAGES.documentRequest(fields),
	task: MESSAGES.taskRequest('0f0e0d0c-0b0a-4090-8070-605040302010'),
	webhook: webhookRequest('p-1', 'http://n8n.local:5678/webhook/abc?token=vnd_secret#x'),
	trigger: { subject: 'task 0f0e0d0c-0b0a-4090-8070-605040302010' },
};

const throttled = (count: number, budgetEnded: boolean) => ({
	throttled: { count, sinceMs: 42_000, budgetEnded, budgetMs: 300_000 },
});
const net = { baseUrl: 'http://127.0.0.1:9', attempts: 4 };

/** name → the failure as the transport throws it. */
const FAILURES: Record<string, ConstructorParameters<typeof ServiceError>[1]> = {
	'401': { kind: 'refused', status: 401, detail: 'Invalid API key' },
	'401 no detail': { kind: 'refused', status: 401, detail: null },
	'402': { kind: 'refused', status: 402, detail: 'Subscription inactive' },
	'404': { kind: 'not_found', status: 404, detail: "Project 'X' not found" },
	'404 no detail': { kind: 'not_found', status: 404, detail: null },
	'422 list': {
		kind: 'refused',
		status: 422,
		detail: [
			{ loc: ['body', 'document_type'], msg: 'field required' },
			{ loc: 'max_pages', msg: 'must be positive' },
			'plain',
		],
	},
	'422 no detail': { kind: 'refused', status: 422, detail: null },
	'400': { kind: 'refused', status: 400, detail: 'Bad things.  ' },
	'403 no detail': { kind: 'refused', status: 403, detail: null },
	'403 object': { kind: 'refused', status: 403, detail: { reason: 'blocked' } },
	'302': { kind: 'refused', status: 302, facts: { location: 'https://api.example.com/projects' } },
	'301 nowhere': { kind: 'refused', status: 301 },
	'500 after 4': { kind: 'service_failed', status: 500, detail: 'down', facts: { attempts: 4 } },
	'503 once': { kind: 'service_failed', status: 503, detail: null, facts: { attempts: 1 } },
	'long detail': { kind: 'refused', status: 400, detail: 'x'.repeat(500) },
	'refused GET': { kind: 'no_answer', status: null, facts: { ...net, code: 'ECONNREFUSED' } },
	'refused once': {
		kind: 'no_answer',
		status: null,
		facts: { ...net, attempts: 1, code: 'ENOTFOUND' },
	},
	'timed out GET': {
		kind: 'no_answer',
		status: null,
		facts: { ...net, code: 'ETIMEDOUT', timedOutAfterMs: 30_000 },
	},
	'unknown code': { kind: 'no_answer', status: null, facts: { ...net, code: 'EWHATEVER' } },
	'client message': {
		kind: 'no_answer',
		status: null,
		facts: { ...net, networkMessage: 'socket hang up EPIPE_X happened.' },
	},
	'nothing known': { kind: 'no_answer', status: null, facts: { ...net } },
	'gateway 502': { kind: 'may_have_arrived', status: 502, facts: { method: 'POST' } },
	'upload timed out': {
		kind: 'may_have_arrived',
		status: null,
		facts: { method: 'POST', code: 'ETIMEDOUT', timedOutAfterMs: 61_000 },
	},
	'upload reset': {
		kind: 'may_have_arrived',
		status: null,
		facts: { method: 'POST', code: 'ECONNRESET' },
	},
	'429 GET budget': {
		kind: 'rate_limited',
		status: 429,
		facts: { method: 'GET', ...throttled(7, true) },
	},
	'429 POST deadline': {
		kind: 'rate_limited',
		status: 429,
		facts: { method: 'POST', ...throttled(1, false) },
	},
	'429 paced': {
		kind: 'rate_limited',
		status: 429,
		facts: { method: 'POST', ...throttled(0, false) },
	},
	'no slot': { kind: 'out_of_time', facts: { slots: 4 } },
	'no time to download': { kind: 'out_of_time', facts: { download: true } },
	'no time': { kind: 'out_of_time' },
	stopped: { kind: 'stopped' },
	'no task_id': { kind: 'unexpected', facts: { response: { ok: true } } },
};

type Row = { message: string; description?: string; kind: string };

function wordsOf(name: string, about: string): Row {
	const failure = new ServiceError(node, FAILURES[name]);
	const words = explain(failure, ABOUT[about]);
	return { message: words.message, description: words.description, kind: failure.kind };
}

describe('explain: the words of each failure', () => {
	const table = WORDING as Record<string, Row>;
	const rows = Object.keys(FAILURES).flatMap((name) =>
		Object.keys(ABOUT).map((about) => [`${name} / ${about}`, name, about] as const),
	);

	test('the table has a row for every failure and about', () => {
		expect(Object.keys(table).sort()).toEqual(rows.map(([key]) => key).sort());
	});

	test.each(rows)('%s', (key, name, about) => {
		expect(wordsOf(name, about)).toEqual(table[key]);
	});

	test('gives words without changing the failure', () => {
		const failure = new ServiceError(node, FAILURES['refused GET']);
		const before = { ...failure, message: failure.message };
		explain(failure, ABOUT.document);
		expect({ ...failure, message: failure.message }).toEqual(before);
	});
});
