import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	document: 'submit' | 'getStatus' | 'submitAndWait';
	project: 'list' | 'registerWebhook';
};

export type DocumentExtractionType = AllEntities<NodeMap>;
