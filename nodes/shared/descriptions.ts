import type { INodeProperties } from 'n8n-workflow';

export const projectLocator: INodeProperties = {
	displayName: 'Project',
	name: 'project',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The project whose schema shapes the extracted data',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a project...',
			typeOptions: { searchListMethod: 'searchProjects', searchable: true },
		},
		{
			displayName: 'By ID or Name',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. Invoices or 3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c',
			validation: [
				{
					type: 'regex',
					// n8n anchors this as ^…$: any text with one non-space character, so that
					// project names with spaces, accents and punctuation pass
					properties: { regex: '\\s*\\S[\\s\\S]*', errorMessage: 'Enter a project ID or name' },
				},
			],
		},
	],
};

/** An "Options" collection; keep `options` sorted by display name. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}
