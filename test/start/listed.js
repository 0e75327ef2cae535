#!/usr/bin/env node
'use strict';

// node test/start/listed.js <n8nBaseUrl> <email> <password>: with the printed login, n8n lists
// the package with both nodes (Settings > Community Nodes) and has loaded both node types.

const { login } = require('../../scripts/n8n-local.js');

const PACKAGE = 'n8n-nodes-document-extraction';
const NODE_TYPES = [`${PACKAGE}.documentExtraction`, `${PACKAGE}.documentExtractionTrigger`];

async function main([baseUrl, email, password]) {
	const headers = {
		cookie: await login(baseUrl, { email, password }),
		'browser-id': 'start-smoke',
	};
	const get = async (path) => {
		const res = await fetch(`${baseUrl}${path}`, { headers });
		const text = await res.text();
		if (res.status !== 200)
			throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
		return JSON.parse(text);
	};
	const { data: packages } = await get('/rest/community-packages');
	const listed = packages.find((p) => p.packageName === PACKAGE);
	if (!listed) {
		throw new Error(
			`${PACKAGE} is not listed under Settings > Community Nodes (listed: ${packages.map((p) => p.packageName).join(', ') || 'none'})`,
		);
	}
	const listedTypes = (listed.installedNodes ?? []).map((n) => n.type).sort();
	const loaded = await get('/types/nodes.json');
	const names = new Set((Array.isArray(loaded) ? loaded : (loaded.data ?? [])).map((n) => n.name));
	for (const type of NODE_TYPES) {
		if (!listedTypes.includes(type))
			throw new Error(`the listed package lacks ${type} (has ${listedTypes.join(', ')})`);
		if (!names.has(type)) throw new Error(`n8n has not loaded the node type ${type}`);
	}
	console.log(
		`[start-smoke] n8n lists ${PACKAGE}@${listed.installedVersion} with ${listedTypes.join(', ')}`,
	);
}

main(process.argv.slice(2)).catch((error) => {
	console.error(`[start-smoke] error: ${error.message}`);
	process.exit(1);
});
