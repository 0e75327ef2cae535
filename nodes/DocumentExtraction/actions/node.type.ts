import type { AllEntities } from 'n8n-workflow';

/** Every resource of the node with its operations; the router must handle each of them. */
export type NodeMap = {
	document: 'submit' | 'getStatus' | 'submitAndWait';
	project: 'list' | 'registerWebhook';
};

export type DocumentExtractionType = AllEntities<NodeMap>;
