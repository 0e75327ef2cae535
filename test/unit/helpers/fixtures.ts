import type { IDataObject } from 'n8n-workflow';

/** Two projects as GET /projects describes them: document types as names or as records. */
export const INVOICES = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c';
export const IDENTITY = '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
export const projects = [
	{ project_id: INVOICES, name: 'Invoices', document_types: ['invoice', 'receipt'] },
	{
		project_id: IDENTITY,
		name: 'Identity',
		document_types: [{ name: 'passport' }, { name: 'id_card' }],
	},
];

/** A task id and a task record as GET /task_status returns it. */
export const TASK = '0b8f2f9e-4a8c-4d1e-9f3a-2c6b7d8e9f01';
export const task = (status: string, extra: IDataObject = {}) => ({
	task_id: TASK,
	status,
	result: null,
	created_at: '2026-11-21T10:00:00Z',
	updated_at: '2026-11-21T10:00:01Z',
	...extra,
});

/** A document operation sending binary field "data" as an invoice of Invoices; `extra` overrides. */
export const documentParams = (operation: string, extra: IDataObject = {}) => ({
	resource: 'document',
	operation,
	binaryPropertyName: 'data',
	project: { __rl: true, mode: 'list', value: INVOICES },
	documentType: 'invoice',
	...extra,
});
