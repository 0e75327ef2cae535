/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: runs under jest on Node, is never shipped or loaded by n8n */
/** The credentials helper: in-memory credentials whose type's own authenticate is applied. */
import { getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentials,
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	deepCopy,
	isExpression,
} from 'n8n-workflow';
import { HarnessNodeTypes } from './nodes';
import type { CredentialTypeMap } from './types';

// ---------------------------------------------------------------------------
// Credentials helper
// ---------------------------------------------------------------------------

class InMemoryCredentials extends ICredentials {
	constructor(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		private store: ICredentialDataDecryptedObject,
	) {
		super(nodeCredentials, type);
	}

	async getData(): Promise<ICredentialDataDecryptedObject> {
		return deepCopy(this.store);
	}

	getDataToSave() {
		return { id: this.id, name: this.name, type: this.type, data: JSON.stringify(this.store) };
	}

	async setData(data: ICredentialDataDecryptedObject): Promise<void> {
		this.store = { ...data };
	}

	async updateData(
		toUpdate: Partial<ICredentialDataDecryptedObject>,
		toDelete: string[] = [],
	): Promise<void> {
		const next = { ...this.store, ...toUpdate } as ICredentialDataDecryptedObject;
		for (const key of toDelete) delete next[key];
		this.store = next;
	}
}

const CREDENTIAL_MOCK_NODE: INode = {
	id: 'credential-resolution',
	name: '',
	type: 'mock',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/**
 * In-memory counterpart of n8n's CLI `CredentialsHelper`: credentials data is
 * held per credential type instead of in the database; defaults, expression
 * resolution, `authenticate` (function or generic) and `preAuthentication`
 * follow n8n's implementation.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	/** Credential data after the run (e.g. after a preAuthentication token refresh). */
	readonly store: Record<string, ICredentialDataDecryptedObject>;

	constructor(
		private readonly credentialTypes: CredentialTypeMap,
		credentials: Record<string, ICredentialDataDecryptedObject> = {},
	) {
		super();
		this.store = deepCopy(credentials);
	}

	private getType(typeName: string): ICredentialType {
		const type = this.credentialTypes[typeName];
		if (!type) {
			throw new UnexpectedError(
				`Unknown credential type "${typeName}" (known: ${Object.keys(this.credentialTypes).join(', ')})`,
			);
		}
		return type;
	}

	getParentTypes(typeName: string): string[] {
		const parents = this.credentialTypes[typeName]?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (!authenticate) return requestOptions;

		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}

		if (authenticate.type === 'generic') {
			if (!workflow || !node) {
				throw new UnexpectedError(
					'Workflow and node are required for declarative credential authentication',
				);
			}
			if (requestOptions.headers === undefined) requestOptions.headers = {};
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					const keyResolved = this.resolveValue(key, credentials, workflow, node);
					const valueResolved = this.resolveValue(value, credentials, workflow, node);
					if (!target[outerKey]) target[outerKey] = {};
					target[outerKey][keyResolved] = valueResolved;
				}
			}
		}
		return requestOptions;
	}

	private resolveValue(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? resolved.toString() : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getType(typeName);
		const expirable = credentialType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined || typeof credentialType.preAuthentication !== 'function') {
			return undefined;
		}
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		if (node.credentials) {
			await this.updateCredentials(node.credentials[typeName], typeName, {
				...credentials,
				...output,
			});
		}
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.getType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		const output = await preAuthentication.call(helpers, credentials);
		return (output as ICredentialDataDecryptedObject) ?? undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		return new InMemoryCredentials(nodeCredentials, type, this.getStored(type));
	}

	private getStored(type: string): ICredentialDataDecryptedObject {
		const data = this.store[type];
		if (!data) {
			throw new UnexpectedError(`No credentials of type "${type}" were given to runWorkflow()`);
		}
		return data;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const original = deepCopy(this.getStored(type));
		if (raw === true) return original;

		let data = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (original.oauthTokenData !== undefined) data.oauthTokenData = original.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				data = expressionResolveValues.workflow.expression.getParameterValue(
					data as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [CREDENTIAL_MOCK_NODE],
				connections: {},
				active: false,
				nodeTypes: new HarnessNodeTypes({}),
			});
			data = workflow.expression.getComplexParameterValue(
				CREDENTIAL_MOCK_NODE,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		}
		return data;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = deepCopy(data);
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = { ...this.getStored(type), oauthTokenData: data.oauthTokenData };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getType(type);
		if (!credentialType.extends) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}
}
