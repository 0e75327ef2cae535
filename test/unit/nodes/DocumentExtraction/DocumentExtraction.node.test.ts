import type {
	INode,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { DocumentExtraction } from '../../../../nodes/DocumentExtraction/DocumentExtraction.node';
import { NodeRun } from '../../../../nodes/DocumentExtraction/actions/common/itemRunner';
import * as document from '../../../../nodes/DocumentExtraction/actions/document/Document.resource';
import * as project from '../../../../nodes/DocumentExtraction/actions/project/Project.resource';
import { createContext, failureOf } from '../../helpers/context';

const node = new DocumentExtraction();
const { description } = node;
const { properties, subtitle } = description;
const execute = (ctx: ReturnType<typeof createContext>) => node.execute.call(ctx);

/** The operation module the node runs for a resource and operation. */
type Operation = { execute: typeof document.submit.execute };
const findOperation = (resource: string, operation: string) =>
	(({ document, project }) as unknown as Record<string, Record<string, Operation>>)[resource]?.[
		operation
	];

const optionsOf = (property: INodeProperties | undefined) =>
	(property?.options ?? []) as INodePropertyOptions[];
const operationsOf = (resource: string) =>
	optionsOf(
		properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
		),
	);

/** Every resource of the description with every operation shown for it: [resource, operation, name]. */
const routes = optionsOf(properties.find((p) => p.name === 'resource')).flatMap((resource) =>
	operationsOf(String(resource.value)).map(
		(operation) => [String(resource.value), String(operation.value), operation.name] as const,
	),
);

describe('the routes of the description', () => {
	it('are the resources and operations of the node, each named in the subtitle as its option is', () => {
		expect(routes.map(([resource, operation]) => `${resource}.${operation}`)).toEqual([
			'document.getStatus',
			'document.submit',
			'document.submitAndWait',
			'project.list',
			'project.registerWebhook',
		]);
		for (const [, value, name] of routes) expect(subtitle).toContain(`${value}: "${name}"`);
		expect(subtitle?.match(/\w+: "[^"]*"/g)).toHaveLength(routes.length);
		expect(subtitle).toMatch(/\[\$parameter\["operation"\]\] \}\}$/);
	});

	it.each(routes)('run %s / %s through its handler', async (resource, operation) => {
		const output: INodeExecutionData[] = [{ json: { routed: `${resource}.${operation}` } }];
		const spy = jest.spyOn(findOperation(resource, operation), 'execute').mockResolvedValue(output);
		const items = [{ json: { n: 1 } }];
		try {
			expect(await execute(createContext({ params: { resource, operation }, items }))).toEqual([
				output,
			]);
			expect(spy).toHaveBeenCalledWith(expect.any(NodeRun));
			expect((spy.mock.calls[0][0] as NodeRun).items).toBe(items);
		} finally {
			spy.mockRestore();
		}
	});

	it.each([
		['document', 'delete'],
		['invoice', 'submit'],
		['document', 'constructor'],
		['toString', 'call'],
	])('refuses %s / %s with a clear error', async (resource, operation) => {
		const error = await failureOf(execute(createContext({ params: { resource, operation } })));
		expect(error.message).toBe(`The operation "${operation}" of "${resource}" is not supported`);
	});
});

describe('tool mode', () => {
	const registerParams = {
		resource: 'project',
		operation: 'registerWebhook',
		project: { __rl: true, mode: 'id', value: 'Invoices' },
		webhookUrl: 'https://example.com/hook',
		events: ['task.completed'],
		secret: '',
	};

	it.each([
		[
			'the node type is the tool variant',
			{ nodeType: 'n8n-nodes-document-extraction.documentExtractionTool' },
			{},
		],
		['n8n reports a tool execution', {}, { isToolExecution: () => true }],
	])('refuses Register Webhook, before any request, when %s', async (_name, options, extra) => {
		const spy = jest.spyOn(findOperation('project', 'registerWebhook'), 'execute');
		const ctx = Object.assign(createContext({ params: registerParams, ...options }), extra);
		const error = await failureOf(execute(ctx));
		expect(error.message).toBe('Register Webhook is not available when the node is used as a tool');
		expect(spy).not.toHaveBeenCalled();
		spy.mockRestore();
	});

	it('hides the Register Webhook option from the tool variant in the editor', () => {
		const register = operationsOf('project').find((o) => o.value === 'registerWebhook');
		expect((register as { displayOptions?: object }).displayOptions).toEqual({
			hide: { '@tool': [true] },
		});
	});
});

describe('Project field typed By ID or Name', () => {
	/** The issues n8n reports for the node's parameters, as it does before it runs a workflow. */
	function issuesFor(projectValue: string) {
		const parameters = {
			resource: 'document',
			operation: 'submitAndWait',
			project: { __rl: true, mode: 'id', value: projectValue },
			documentType: 'invoice',
		};
		const withProject = {
			id: 'n1',
			name: 'Document Extraction',
			type: 'n8n-nodes-document-extraction.documentExtraction',
			typeVersion: 1,
			position: [0, 0],
			parameters,
		} as INode;
		return NodeHelpers.getNodeParametersIssues(properties, withProject, description)?.parameters
			?.project;
	}

	it.each(['Invoices EU', 'Invoices EU – Zürich (2025)', ' Padded name ', 'Ünïcödé & Co.'])(
		'accepts "%s"',
		(name) => {
			expect(issuesFor(name)).toBeUndefined();
		},
	);

	it.each(['', '   '])('refuses "%s" with a message that says what to enter', (name) => {
		expect(JSON.stringify(issuesFor(name))).toMatch(/project ID or name|required/i);
	});
});
