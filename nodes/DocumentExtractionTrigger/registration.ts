import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { worded } from '../shared/explain';
import { readProjectField, resolveProjectId, webhookRequest } from '../shared/projects';
import { isUuid } from '../shared/uuid';
import {
	generateWebhookSecret,
	registerWebhook,
	WEBHOOK_EVENTS,
} from '../shared/transport/service';
import { nodeError } from '../shared/transport/errors';
import { MESSAGES } from './messages';

const MAX_RETIRED_REGISTRATIONS = 10;

/** A webhook this node registered, as kept in the node's static data. */
interface Registration extends IDataObject {
	url: string;
	projectId: string;
	/** The Project field when registering (an ID or a name). */
	projectValue: string;
	secret: string;
	registeredAt: string;
	/** Made because "Register Again on Next Publish" was on. */
	registeredAgain?: boolean;
}

function isRegistration(value: unknown): value is Registration {
	if (!value || typeof value !== 'object') return false;
	const { url, projectId, secret } = value as IDataObject;
	return typeof url === 'string' && typeof projectId === 'string' && typeof secret === 'string';
}

export function getRegistration(data: IDataObject): Registration | undefined {
	return isRegistration(data.registration) ? data.registration : undefined;
}

function retiredRegistrations(data: IDataObject): Registration[] {
	return Array.isArray(data.retiredRegistrations)
		? data.retiredRegistrations.filter(isRegistration)
		: [];
}

function sameTarget(a: Registration, url: string, projectId: string): boolean {
	return a.url === url && a.projectId === projectId;
}

/** The service cannot remove a webhook: it is kept, for a later `create` to take up again. */
export function retireRegistration(data: IDataObject): void {
	const current = getRegistration(data);
	if ('registration' in data) delete data.registration;
	if (!current) return;
	const others = retiredRegistrations(data).filter(
		(r) => !sameTarget(r, current.url, current.projectId),
	);
	// Reassigned rather than mutated in place, so that n8n notices the change and saves it.
	data.retiredRegistrations = [...others, current].slice(-MAX_RETIRED_REGISTRATIONS);
}

/** Between the `delete` and `create` of a re-publish, deliveries signed with its secret count. */
export function retiredRegistrationFor(
	data: IDataObject,
	url: string | undefined,
	project: string,
): Registration | undefined {
	if (!url || !project) return undefined;
	return retiredRegistrations(data).find(
		(r) => r.url === url && (r.projectValue === project || r.projectId === project),
	);
}

function takeRetired(data: IDataObject, url: string, projectId: string): Registration | undefined {
	const retired = retiredRegistrations(data);
	const match = retired.find((r) => sameTarget(r, url, projectId));
	if (!match) return undefined;
	data.retiredRegistrations = retired.filter((r) => r !== match);
	return match;
}

/** A name is looked up only when the field reads otherwise than at registration. */
export async function registrationExists(this: IHookFunctions): Promise<boolean> {
	const current = getRegistration(this.getWorkflowStaticData('node'));
	if (!current) return false;
	if (current.url !== this.getNodeWebhookUrl('default')) return false;
	const project = readProjectField(this);
	if (!project) return false;
	if (project === current.projectValue || project === current.projectId) return true;
	if (isUuid(project)) return false;
	return (await resolveProjectId.call(this, project)) === current.projectId;
}

/** Registers the webhook URL with a fresh secret, or takes up this node's earlier one. "Register Again
 * on Next Publish" replaces it once: the new one is marked until a publish with the option off. */
export async function createRegistration(this: IHookFunctions): Promise<boolean> {
	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default');
	if (!url) throw nodeError(this, 'invalid_input', MESSAGES.noWebhookUrl);
	const project = readProjectField(this);
	if (!project) {
		const { message, description } = MESSAGES.noProject;
		throw nodeError(this, 'invalid_input', message, { description });
	}
	const projectId = await resolveProjectId.call(this, project);

	// A registration for another URL or project stays valid at the service: keep it for later.
	retireRegistration(data);

	const again = (this.getNodeParameter('options', {}) as IDataObject).registerAgain === true;
	const earlier = takeRetired(data, url, projectId);
	if (earlier && (!again || earlier.registeredAgain === true)) {
		const takenUp: Registration = { ...earlier, projectValue: project };
		if (!again) delete takenUp.registeredAgain;
		data.registration = takenUp;
		return true;
	}

	const secret = generateWebhookSecret();
	await registerWebhook
		.call(this, projectId, { url, events: [...WEBHOOK_EVENTS], secret })
		.catch((error: unknown) => {
			throw worded(error, webhookRequest(projectId, url));
		});
	const registration: Registration = {
		url,
		projectId,
		projectValue: project,
		secret,
		registeredAt: new Date().toISOString(),
	};
	if (again) registration.registeredAgain = true;
	data.registration = registration;
	return true;
}
