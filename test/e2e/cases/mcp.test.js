'use strict';

/**
 * The node as a tool of n8n's MCP Server Trigger (examples/mcp-server.json, plus a tool saved with
 * Register Webhook), driven by a real MCP client over Streamable HTTP, no language model.
 */

const assert = require('node:assert/strict');
const { test, after } = require('node:test');

const { startN8n } = require('../../../harness/n8n.js');
const { publish } = require('../lib/publishing.js');
const { requestCount, servedFiles, registeredWebhooks } = require('../lib/emulator-client.js');
const { WF } = require('../../../harness/workflows.js');
const { connectMcp } = require('../lib/mcp-client.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const TOOL_CALL_TIMEOUT_MS = 120000;
let client;

after(() => client?.close().catch(() => {}));

const callTool = (name, args) =>
	client.callTool({ name, arguments: args }, undefined, { timeout: TOOL_CALL_TIMEOUT_MS });

test('MCP: the published workflow lists the tools with their descriptions and $fromAI parameters', async (t) => {
	if (!state.n8n?.alive) await startN8n();
	await publish(WF.mcp);
	client = await connectMcp('docex-e2e');
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
	const extract = byName.Extract_invoice_from_URL;
	const { url } = extract.inputSchema.properties;
	assert.deepEqual(
		tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties)]).sort(),
		[
			['Extract_invoice_from_URL', ['url']],
			['Get_extraction_status', ['taskId']],
			['Register_webhook', ['url']],
		],
	);
	assert.match(
		extract.description,
		/^Extract the fields of an invoice .* at a public http\(s\) URL/,
	);
	assert.deepEqual([url.type, extract.inputSchema.required], ['string', ['url']]);
	assert.match(url.description, /http:\/\/ or https:\/\/ address of the invoice file itself/);
	t.diagnostic(`${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}`);
});

test('MCP: a tool call extracts a document from a URL and returns the fields compactly; a bad URL or task ID is a readable tool error', async (t) => {
	assert.ok(client, 'no MCP client');
	const url = `${state.emulatorUrl}/_emulator/files/mcp-invoice.pdf?redirect=1`;
	const result = await callTool('Extract_invoice_from_URL', { url });
	assert.notEqual(result.isError, true, `tool error: ${result.content?.[0]?.text}`);
	const text = result.content[0].text;
	const [output] = JSON.parse(text);
	const file = (await servedFiles()).filter((f) => f.name === 'mcp-invoice.pdf').pop();
	assert.equal(output.file_sha256, file?.sha256, 'the service received other bytes than served');
	assert.match(String(output.invoice_number), /^INV-/);
	assert.ok(output.total_amount !== undefined && output.currency && output.vendor_name, text);
	assert.equal(output.result, undefined, 'the fields should be flat, not a whole task');
	assert.doesNotMatch(text, /vnd_|whsec_|Bearer|authorization/i, 'the output carries a secret');
	assert.ok(text.length < 2000, `tool output is ${text.length} characters`);

	const uploads = await requestCount('process_file');
	const errors = [
		['Get_extraction_status', { taskId: 'not-a-task' }, /"not-a-task" is not a task ID/],
		[
			'Extract_invoice_from_URL',
			{ url: `${state.emulatorUrl}/_emulator/files/nowhere.pdf?status=404` },
			/the host answered 404/,
		],
		['Extract_invoice_from_URL', { url: 'file:///etc/passwd' }, /is not an http\(s\) URL/],
	];
	for (const [tool, args, message] of errors) {
		const answer = await callTool(tool, args);
		assert.equal(answer.isError, true, JSON.stringify(args));
		assert.match(answer.content[0].text, message);
	}
	assert.equal(await requestCount('process_file'), uploads, 'a bad URL reached the service');
	assert.ok((await client.listTools()).tools.length >= 2, 'the server stopped serving');
	t.diagnostic(`${output.vendor_name} ${output.invoice_number}, ${text.length} characters`);
});

test('MCP: a tool node saved with Register Webhook is refused and registers nothing', async () => {
	assert.ok(client, 'no MCP client');
	const before = (await registeredWebhooks()).length;
	const result = await callTool('Register_webhook', { url: 'http://127.0.0.1:9/agent-hook' });
	assert.equal(result.isError, true);
	assert.match(
		result.content[0].text,
		/Register Webhook is not available when the node is used as a tool/,
	);
	assert.doesNotMatch(result.content[0].text, /whsec_/);
	assert.equal((await registeredWebhooks()).length, before);
});
