'use strict';

/**
 * What the suite shares between its modules and cases, filled in by lib/setup.js and the
 * cases (one object for the whole process: every case file runs in the suite's process).
 */
module.exports = {
	/** temporary work folder (n8n user folder, logs, imported files) */
	tmp: undefined,
	/** the package's tarball, as `npm pack` made it */
	tarball: undefined,
	/** N8N_USER_FOLDER */
	userFolder: undefined,
	/** http://127.0.0.1:<port> of the emulator process */
	emulatorUrl: undefined,
	/** the emulator child process */
	emulator: undefined,
	/** the `n8n start` child process, while one runs */
	n8n: undefined,
	/** the port every n8n process of the suite uses */
	n8nPort: undefined,
	/** numbers the n8n server logs n8n-1.log, n8n-2.log, … */
	n8nLogIndex: 0,
	/** REST session cookie of the running n8n server */
	cookie: undefined,
	/** the trigger's production webhook URL, once published */
	triggerUrl: undefined,
	/** the trigger workflow's version after the edit step */
	triggerVersionId: undefined,
};
