'use strict';
/**
 * Benchmark only (row P7, bench/bulk.js): the floor of n8n's request helper. For every input
 * item it sends what Submit and Wait sends (POST /process_file with the file as base64 JSON,
 * then GET /task_status every Poll Interval until the task ends) through
 * `this.helpers.httpRequest` with the same request options, at most `concurrency` requests in
 * flight, status checks first; and nothing else: no checks, retries, pacing or error mapping.
 */
class DocexFloor {
	constructor() {
		this.description = {
			displayName: 'Document Extraction Helper Floor',
			name: 'docexFloor',
			group: ['transform'],
			version: 1,
			description: 'Benchmark only: sends the requests of Submit and Wait through the request helper',
			defaults: { name: 'Helper Floor' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [
				{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
				{ displayName: 'API Key', name: 'apiKey', type: 'string', default: '' },
				{ displayName: 'Poll Interval (Seconds)', name: 'pollIntervalS', type: 'number', default: 2 },
				{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 5 },
			],
		};
	}

	async execute() {
		const items = this.getInputData();
		const baseUrl = this.getNodeParameter('baseUrl', 0);
		const apiKey = this.getNodeParameter('apiKey', 0);
		const intervalMs = this.getNodeParameter('pollIntervalS', 0) * 1000;
		const limit = this.getNodeParameter('concurrency', 0);
		const signal = this.getExecutionCancelSignal();
		let active = 0;
		const waiting = { high: [], normal: [] };
		const limited = async (priority, fn) => {
			if (active < limit) active++;
			else await new Promise((resolve) => waiting[priority].push(resolve));
			try {
				return await fn();
			} finally {
				const next = waiting.high.shift() || waiting.normal.shift();
				if (next) next();
				else active--;
			}
		};
		const send = async (method, path, body) => {
			const request = {
				method,
				url: `${baseUrl}${path}`,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}` },
				timeout: 30000,
				abortSignal: AbortSignal.any([signal, AbortSignal.timeout(30000)]),
			};
			if (body) {
				request.body = body;
				request.headers['Content-Type'] = 'application/json';
			}
			const response = await this.helpers.httpRequest(request);
			if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode}`);
			return response.body;
		};
		const one = async (i) => {
			const file = await this.helpers.getBinaryDataBuffer(i, 'data');
			const body = Buffer.from(
				`{"project":"Invoices","document_type":"invoice","file_base64":"${file.toString('base64')}"}`,
			);
			const { task_id: taskId } = await limited('normal', () => send('POST', '/process_file', body));
			for (;;) {
				await new Promise((resolve) => setTimeout(resolve, intervalMs));
				const task = await limited('high', () => send('GET', `/task_status/${taskId}`));
				if (task.status === 'complete' || task.status === 'failed') {
					return { json: { task_id: taskId, ...task.result }, pairedItem: { item: i } };
				}
			}
		};
		return [await Promise.all(items.map((_, i) => one(i)))];
	}
}

module.exports = { DocexFloor };
