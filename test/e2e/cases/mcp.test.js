'use strict';

/**
 * The node as a tool of n8n's MCP Server Trigger, driven by a real MCP client over Streamable
 * HTTP (no language model): the published workflow is the example examples/mcp-server.json on
 * the suite's path, plus a tool node saved with Register Webhook, which must be refused.
 */

const assert = require('node:assert/strict');
const { test, after } = require('node:test');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { startN8n, rest, waitFor, waitPublished } = require('../../../harness/n8n.js');
const { requestCount, servedFiles, registeredWebhooks } = require('../lib/emulator-client.js');
const { WF, MCP_PATH } = require('../../../harness/workflows.js');
const { useSuite } = require('../lib/setup.js');
const state = require('../../../harness/state.js');

useSuite();

const TOOL_CALL_TIMEOUT_MS = 120000;
let client;

after(async () => {
	await client?.close().catch(() => {});
});

/** Publishes the MCP workflow in the running n8n server (starting it if needed). */
async function publishMcpWorkflow() {
	if (!state.n8n?.alive) await startN8n();
	const wf = await rest('GET', `/workflows/${WF.mcp}`);
	await rest('POST', `/workflows/${WF.mcp}/activate`, { versionId: wf.versionId });
	await waitPublished(WF.mcp, wf.versionId);
}

async function connect() {
	const url = new URL(`http://127.0.0.1:${state.n8nPort}/mcp/${MCP_PATH}`);
	return await waitFor(`${url} to serve MCP`, async () => {
		const candidate = new Client({ name: 'docex-e2e', version: '1.0.0' });
		try {
			await candidate.connect(new StreamableHTTPClientTransport(url));
			return candidate;
		} catch {
			await candidate.close().catch(() => {});
			return undefined;
		}
	});
}

const callTool = (name, args) =>
	client.callTool({ name, arguments: args }, undefined, { timeout: TOOL_CALL_TIMEOUT_MS });

test('MCP: the published workflow lists the tools with their descriptions and $fromAI parameters', async (t) => {
	await publishMcpWorkflow();
	client = await connect();
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
	assert.deepEqual(Object.keys(byName).sort(), [
		'Extract_invoice_from_URL',
		'Get_extraction_status',
		'Register_webhook',
	]);
	const extract = byName.Extract_invoice_from_URL;
	assert.match(
		extract.description,
		/^Extract the fields of an invoice .* at a public http\(s\) URL/,
	);
	assert.deepEqual(Object.keys(extract.inputSchema.properties), ['url']);
	assert.equal(extract.inputSchema.properties.url.type, 'string');
	assert.match(
		extract.inputSchema.properties.url.description,
		/http:\/\/ or https:\/\/ address of the invoice file itself/,
	);
	assert.deepEqual(extract.inputSchema.required, ['url']);
	const status = byName.Get_extraction_status;
	assert.deepEqual(Object.keys(status.inputSchema.properties), ['taskId']);
	t.diagnostic(`${tools.length} tools: ${tools.map((tool) => tool.name).join(', ')}`);
});

test('MCP: a tool call extracts a document from a URL and returns the fields compactly', async (t) => {
	assert.ok(client, 'no MCP client');
	const url = `${state.emulatorUrl}/_emulator/files/mcp-invoice.pdf?redirect=1`;
	const result = await callTool('Extract_invoice_from_URL', { url });
	assert.notEqual(result.isError, true, `tool error: ${result.content?.[0]?.text}`);
	const [output] = JSON.parse(result.content[0].text);
	const file = (await servedFiles()).filter((f) => f.name === 'mcp-invoice.pdf').pop();
	assert.ok(file, 'the emulator served no mcp-invoice.pdf');
	assert.equal(
		output.file_sha256,
		file.sha256,
		'the service received other bytes than were served',
	);
	assert.match(String(output.invoice_number), /^INV-/);
	assert.ok(
		output.total_amount !== undefined && output.currency && output.vendor_name,
		JSON.stringify(output),
	);
	assert.equal(output.result, undefined, 'the fields should be flat, not a whole task');
	const text = result.content[0].text;
	assert.doesNotMatch(
		text,
		/vnd_|whsec_|Bearer|authorization/i,
		'the tool output carries a secret',
	);
	assert.ok(text.length < 2000, `tool output is ${text.length} characters`);

	const again = await callTool('Get_extraction_status', { taskId: 'not-a-task' });
	assert.equal(again.isError, true);
	assert.match(again.content[0].text, /"not-a-task" is not a task ID/);
	t.diagnostic(`${output.vendor_name} ${output.invoice_number}, ${text.length} characters`);
});

test('MCP: a bad URL comes back as a readable tool error; the server keeps serving', async (t) => {
	assert.ok(client, 'no MCP client');
	const before = await requestCount('process_file');
	const missing = await callTool('Extract_invoice_from_URL', {
		url: `${state.emulatorUrl}/_emulator/files/nowhere.pdf?status=404`,
	});
	assert.equal(missing.isError, true);
	assert.match(missing.content[0].text, /the host answered 404/);
	const notHttp = await callTool('Extract_invoice_from_URL', { url: 'file:///etc/passwd' });
	assert.equal(notHttp.isError, true);
	assert.match(notHttp.content[0].text, /is not an http\(s\) URL/);
	assert.equal(await requestCount('process_file'), before, 'a bad URL reached the service');
	const { tools } = await client.listTools();
	assert.ok(tools.length >= 2, 'the server stopped serving after the errors');
	t.diagnostic(missing.content[0].text.split('\n')[0]);
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
