'use strict';

/** Fixed names, ids and sample files of the end-to-end suite. */

const crypto = require('node:crypto');

const { samplePdf } = require('../emulator/lib/pdf.js');

const PACKAGE = 'n8n-nodes-document-extraction';

const FILES = {
	a: { name: 'a.pdf', bytes: samplePdf('INVOICE INV-A-1001 Acme Supplies GmbH Total 1190.00 EUR') },
	b: { name: 'b-broken.pdf', bytes: samplePdf('INVOICE INV-B-2002 EMULATOR_FAIL unreadable scan') },
	c: { name: 'c.pdf', bytes: samplePdf('INVOICE INV-C-3003 Northwind Traders Total 42.00 USD') },
	t: { name: 'trigger.pdf', bytes: samplePdf('INVOICE INV-T-4004 delivered by webhook') },
	s: { name: 'status.pdf', bytes: samplePdf('INVOICE INV-S-5005 fetched with Get Status') },
	r: { name: 'restart.pdf', bytes: samplePdf('INVOICE INV-R-6006 after republishing') },
};

/** The Intake Key credential the suites give the production workflow's Receive Documents. */
const INTAKE_KEY = {
	id: 'DocExtrIntakeE2E',
	name: 'Intake Key (test)',
	header: 'X-Intake-Key',
	value: 'e2e-intake-key-5f0c9d2a7b41e8c3a6d9f2b7c4e1a8d3',
};

module.exports = {
	ACTION: `${PACKAGE}.documentExtraction`,
	INVOICES_ID: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c',
	IDENTITY_ID: '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
	UNKNOWN_PROJECT_ID: '00000000-0000-4000-8000-00000000e2e0',
	GOOD_KEY: 'vnd_test_key',
	INACTIVE_KEY: 'vnd_inactive_key',
	CRED: {
		documentExtractionApi: { id: 'DocExtrLocalEmu1', name: 'Document Extraction (local emulator)' },
	},
	CRED_INACTIVE: {
		documentExtractionApi: { id: 'DocExtrInactive1', name: 'Document Extraction (inactive key)' },
	},
	INTAKE_KEY,
	/** The Intake Key credential as n8n's CLI imports it. */
	intakeKeyCredential: () => ({
		id: INTAKE_KEY.id,
		name: INTAKE_KEY.name,
		type: 'documentExtractionIntakeApi',
		data: { secret: INTAKE_KEY.value },
	}),
	EXAMPLE_SUBMIT_ID: 'DocExtrExample01',
	EXAMPLE_TRIGGER_ID: 'DocExtrExample02',
	TRIGGER_NODE: 'Document Extraction Trigger',
	CRM_NODE: 'CRM Record',
	REGISTERED_HOOK_URL: 'http://127.0.0.1:9/e2e-registered-by-node',
	UUID_RE: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
	FILES,
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
	sha256: (buf) => crypto.createHash('sha256').update(buf).digest('hex'),
};
