/** Every resource of the node with its operations; the router must handle each of them. */
export type NodeMap = {
	document: 'submit' | 'getStatus' | 'submitAndWait';
	project: 'list' | 'registerWebhook';
};
