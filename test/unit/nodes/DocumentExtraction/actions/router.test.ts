import type { INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentExtraction } from '../../../../../nodes/DocumentExtraction/DocumentExtraction.node';
import { findOperation, router } from '../../../../../nodes/DocumentExtraction/actions/router';
import { createContext, failureOf } from '../../../helpers/context';

const { properties } = new DocumentExtraction().description;

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
			expect(execute).toHaveBeenCalledWith(items);
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
		expect(findOperation(resource, operation)).toBeUndefined();
		const error = await failureOf(router.call(createContext({ params: { resource, operation } })));
		expect(error.message).toBe(`The operation "${operation}" of "${resource}" is not supported`);
	});
});
