import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection, projectLocator } from '../shared/descriptions';
import { DEFAULT_TIMESTAMP_TOLERANCE_MINUTES } from './delivery';

export const properties: INodeProperties[] = [
	{
		...projectLocator,
		description:
			'The project whose finished documents start this workflow. Publishing registers the production URL there once; a test listen (“Execute step” on this node) registers the test URL (…/webhook-test/…) anew for every listen. The service delivers only to an https address it can reach: set n8n’s WEBHOOK_URL to its public https address.',
		displayOptions: { show: { useExistingRegistration: [false] } },
	},
	{
		displayName: 'Use Existing Registration',
		name: 'useExistingRegistration',
		type: 'boolean',
		default: false,
		description:
			'Whether to skip registering a webhook and use one that is already registered for this node’s URL (with Register Webhook or in the dashboard). Register the test URL once this way to test without a new registration for every listen.',
	},
	{
		displayName: 'Webhook Secret',
		name: 'webhookSecret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		placeholder: 'whsec_…',
		description:
			'The secret the existing webhook was registered with. Deliveries signed with another key are refused.',
		displayOptions: { show: { useExistingRegistration: [true] } },
	},
	optionsCollection([
		{
			displayName: 'Fetch Error Details',
			name: 'fetchErrorDetails',
			type: 'boolean',
			default: true,
			description:
				'Whether to look up the error message of a failed task (GET /task_status) and add it as "error"',
		},
		{
			displayName: 'Register Again on Next Publish',
			name: 'registerAgain',
			type: 'boolean',
			default: false,
			description:
				'Whether the next publish registers this node’s webhook at the service anew, with a new secret, instead of reusing the registration remembered from an earlier publish. Use it after deleting the webhook in the service’s dashboard; later publishes reuse the new registration. Turn it off afterwards.',
			displayOptions: { show: { '/useExistingRegistration': [false] } },
		},
		{
			displayName: 'Status',
			name: 'statusFilter',
			type: 'options',
			default: 'both',
			options: [
				{ name: 'Complete or Failed', value: 'both' },
				{ name: 'Complete Only', value: 'complete' },
				{ name: 'Failed Only', value: 'failed' },
			],
			description:
				'Which finished tasks start the workflow; the others are acknowledged and ignored',
		},
		{
			displayName: 'Timestamp Tolerance (Minutes)',
			name: 'timestampTolerance',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_TIMESTAMP_TOLERANCE_MINUTES,
			description:
				'How far the signed timestamp of a delivery may lie from n8n’s clock. An older (replayed) or future delivery is acknowledged and starts nothing; one without a readable timestamp is refused. 0 turns the check off.',
		},
	]),
];
