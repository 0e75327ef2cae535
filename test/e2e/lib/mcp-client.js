'use strict';

/** A real MCP client (Streamable HTTP) of the suite's n8n, once its MCP Server Trigger serves. */

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const {
	StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { waitFor } = require('../../../harness/n8n.js');
const { MCP_PATH } = require('../../../harness/workflows.js');
const state = require('../../../harness/state.js');

async function connectMcp(name) {
	const url = new URL(`http://127.0.0.1:${state.n8nPort}/mcp/${MCP_PATH}`);
	return await waitFor(`${url} to serve MCP`, async () => {
		const candidate = new Client({ name, version: '1.0.0' });
		try {
			await candidate.connect(new StreamableHTTPClientTransport(url));
			return candidate;
		} catch {
			await candidate.close().catch(() => {});
			return undefined;
		}
	});
}

module.exports = { connectMcp };
