'use strict';

/** One call to the admin API (`/_emulator/<route>`) of the emulator `emu`; its JSON answer. */
async function emulatorAdmin(emu, method, route, body) {
	const response = await fetch(`${emu.url}/_emulator/${route}`, {
		method,
		headers: body ? { 'Content-Type': 'application/json' } : undefined,
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!response.ok) throw new Error(`emulator ${method} ${route}: ${response.status}`);
	return await response.json();
}

module.exports = { emulatorAdmin };
