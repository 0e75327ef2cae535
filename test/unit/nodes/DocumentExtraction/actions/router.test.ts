import type { INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentExtraction } from '../../../../../nodes/DocumentExtraction/DocumentExtraction.node';
import { NodeRun } from '../../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import { router } from '../../../../../nodes/DocumentExtraction/actions/router';
import * as document from '../../../../../nodes/DocumentExtraction/actions/document/Document.resource';
import * as project from '../../../../../nodes/DocumentExtraction/actions/project/Project.resource';

import { createContext, failureOf } from '../../../helpers/context';

const { properties } = new DocumentExtraction().description;

/** The operation module the router runs for a resource and operation. */
type Operation = { execute: typeof document.submit.execute };
const findOperation = (resource: string, operation: string) =>
	(({ document, project }) as unknown as Record<string, Record<string, Operation>>)[resource]?.[
		operation
	];

function optionsOf(property: INodeProperties | undefined): INodePropertyOptions[] {
	return (property?.options ?? []) as INodePropertyOptions[];
}

/** Every resource of the node description with every operation shown for it. */
const routes = optionsOf(properties.find((p) => p.name === 'resource')).flatMap((resource) =>
	optionsOf(
		properties.find(
			(p) =>
				p.name === 'operation' &&
				p.displayOptions?.show?.resource?.includes(resource.value as string),
		),
	).map((operation) => [String(resource.value), String(operation.value)] as const),
);

describe('router', () => {
	it('finds the resources and operations of the description', () => {
		expect(routes).toEqual([
			['document', 'getStatus'],
			['document', 'submit'],
			['document', 'submitAndWait'],
			['project', 'list'],
			['project', 'registerWebhook'],
		]);
	});

	it.each(routes)('routes %s / %s to a handler', async (resource, operation) => {
		const handler = findOperation(resource, operation);
		expect(handler).toBeDefined();
		const output: INodeExecutionData[] = [{ json: { routed: `${resource}.${operation}` } }];
		const execute = jest.spyOn(handler!, 'execute').mockResolvedValue(output);
		const items = [{ json: { n: 1 } }];
		try {
			const result = await router.call(createContext({ params: { resource, operation }, items }));
			expect(result).toEqual([output]);
			expect(execute).toHaveBeenCalledWith(expect.any(NodeRun));
			expect((execute.mock.calls[0][0] as NodeRun).items).toBe(items);
		} finally {
			execute.mockRestore();
		}
	});

	it.each([
		['document', 'delete'],
		['invoice', 'submit'],
		['document', 'constructor'],
		['toString', 'call'],
	])('refuses %s / %s with a clear error', async (resource, operation) => {
		const error = await failureOf(router.call(createContext({ params: { resource, operation } })));
		expect(error.message).toBe(`The operation "${operation}" of "${resource}" is not supported`);
	});
});

describe('tool mode', () => {
	const TOOL = 'n8n-nodes-document-extraction.documentExtractionTool';
	const registerParams = {
		resource: 'project',
		operation: 'registerWebhook',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		webhookUrl: 'https://example.com/hook',
		events: ['task.completed'],
		secret: '',
	};

	it.each([
		['the node type is the tool variant', { nodeType: TOOL }, {}],
		['n8n reports a tool execution', {}, { isToolExecution: () => true }],
	])('refuses Register Webhook, before any request, when %s', async (_name, options, extra) => {
		const execute = jest.spyOn(findOperation('project', 'registerWebhook')!, 'execute');
		const ctx = Object.assign(createContext({ params: registerParams, ...options }), extra);
		const error = await failureOf(router.call(ctx));
		expect(error.message).toBe('Register Webhook is not available when the node is used as a tool');
		expect(execute).not.toHaveBeenCalled();
		execute.mockRestore();
	});

	it('hides the Register Webhook option from the tool variant in the editor', () => {
		const operation = properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('project'),
		);
		const register = optionsOf(operation).find((o) => o.value === 'registerWebhook') as
			| (INodePropertyOptions & { displayOptions?: { hide?: Record<string, unknown[]> } })
			| undefined;
		expect(register?.displayOptions).toEqual({ hide: { '@tool': [true] } });
	});
});
