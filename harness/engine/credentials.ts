/**
 * The credentials helper: in-memory credentials, their defaults applied and expressions resolved as
 * n8n's CLI CredentialsHelper does. The nodes read their credential and send plain requests, so
 * nothing here authenticates a request: the methods n8n would call for that throw.
 */
import { getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestOptions,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentials, ICredentialsHelper, NodeHelpers, UnexpectedError, deepCopy } from 'n8n-workflow';
import type { CredentialTypeMap } from './types';

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

export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly store: Record<string, ICredentialDataDecryptedObject>;

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

	private getStored(type: string): ICredentialDataDecryptedObject {
		const data = this.store[type];
		if (!data) {
			throw new UnexpectedError(`No credentials of type "${type}" were given to runWorkflow()`);
		}
		return data;
	}

	private unused(method: string): never {
		throw new UnexpectedError(`The harness's credentials helper has no ${method}: no node calls it`);
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(): Promise<IHttpRequestOptions> {
		return this.unused('authenticate');
	}

	async preAuthentication(): Promise<undefined> {
		return this.unused('preAuthentication');
	}

	async runPreAuthentication(): Promise<undefined> {
		return this.unused('runPreAuthentication');
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		return new InMemoryCredentials(nodeCredentials, type, this.getStored(type));
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		resolve?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const original = deepCopy(this.getStored(type));
		if (raw === true) return original;
		const data = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (!resolve) return this.unused('getDecrypted without expression values');
		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		return resolve.workflow.expression.getParameterValue(
			data as INodeParameters,
			resolve.runExecutionData,
			resolve.runIndex,
			resolve.itemIndex,
			resolve.node.name,
			resolve.connectionInputData,
			mode,
			additionalKeys,
			executeData,
			false,
			data,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {
		this.unused('updateCredentials');
	}

	async updateCredentialsOauthTokenData(): Promise<void> {
		this.unused('updateCredentialsOauthTokenData');
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.getType(type).properties;
	}
}
