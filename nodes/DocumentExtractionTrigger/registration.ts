import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { explain, webhookRequest } from '../shared/explain';
import { readProjectField, resolveProjectId } from '../shared/projects';
import { isUuid } from '../shared/uuid';
import {
	generateWebhookSecret,
	registerWebhook,
	WEBHOOK_EVENTS,
} from '../shared/transport/service';
import { nodeError } from '../shared/transport/errors';
import { MESSAGES } from './messages';

/** How many earlier registrations are remembered so that publishing again can reuse them. */
const MAX_RETIRED_REGISTRATIONS = 10;

/** A webhook this node registered at the service, as kept in the node's static data. */
export interface Registration extends IDataObject {
	url: string;
	projectId: string;
	/** The Project field as it was when registering (an ID or a name). */
	projectValue: string;
	secret: string;
	webhookId?: string;
	response?: IDataObject;
	registeredAt: string;
	/** Set when the registration was made because "Register Again on Next Publish" was on. */
	registeredAgain?: boolean;
}

/** The name of the option that makes the next publish register the webhook anew. */
export const REGISTER_AGAIN_OPTION = 'Register Again on Next Publish';

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

/**
 * Takes the current registration out of use: nothing is left that makes `checkExists` true.
 * The service has no endpoint to remove a webhook, so the registration keeps delivering to its
 * URL; it is remembered (with its secret) so that a later `create` for the same URL and project
 * can take it up again instead of registering a second webhook.
 */
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

/**
 * The retired registration that `create` would take up again for this URL and Project field, if
 * any. Publishing again runs `delete` then `create`, and n8n may store the static data between
 * the two: for that moment there is no current registration, and deliveries signed with its
 * secret must still be accepted.
 */
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

/** Removes and returns the remembered registration for this URL and project, if any. */
function takeRetired(data: IDataObject, url: string, projectId: string): Registration | undefined {
	const retired = retiredRegistrations(data);
	const match = retired.find((r) => sameTarget(r, url, projectId));
	if (!match) return undefined;
	data.retiredRegistrations = retired.filter((r) => r !== match);
	return match;
}

/** The identifier the service gave the webhook, under whichever name it uses. */
function webhookIdOf(response: unknown): string | undefined {
	if (!response || typeof response !== 'object' || Array.isArray(response)) return undefined;
	const body = response as IDataObject;
	const nested =
		body.webhook && typeof body.webhook === 'object' ? (body.webhook as IDataObject) : {};
	const id = body.webhook_id ?? body.webhookId ?? body.id ?? nested.webhook_id ?? nested.id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** The service's answer without any secret it may echo back. */
function withoutSecrets(value: unknown): IDataObject | undefined {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
	const copy: IDataObject = {};
	for (const [key, entry] of Object.entries(value as IDataObject)) {
		if (/secret/i.test(key)) continue;
		copy[key] =
			entry && typeof entry === 'object' && !Array.isArray(entry)
				? (withoutSecrets(entry) ?? {})
				: entry;
	}
	return copy;
}

/** The URL n8n gives this node's webhook (test or production). */
function nodeWebhookUrl(this: IHookFunctions): string {
	const url = this.getNodeWebhookUrl('default');
	if (!url) {
		throw nodeError(this, 'invalid_input', MESSAGES.noWebhookUrl);
	}
	return url;
}

/** Whether "Register Again on Next Publish" is on. */
function registersAgain(this: IHookFunctions): boolean {
	const options = this.getNodeParameter('options', {}) as IDataObject;
	return options?.registerAgain === true;
}

/**
 * True when the static data holds a registration for exactly the current webhook URL and
 * project. The project is looked up by name only when the field no longer reads as it did
 * at registration time. Never changes anything.
 */
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

/**
 * Registers the node's webhook URL for task.completed at the project, with a fresh secret.
 * A registration this node made earlier for the same URL and project (kept by `delete`) is
 * taken up again instead, because the service still delivers to it, unless "Register Again on
 * Next Publish" is on: then the remembered registration (deleted in the dashboard, say) is
 * forgotten and a new one made, once. Later publishes with the option still on take up that new
 * registration; a publish with the option off clears the mark, so turning it on again registers
 * anew again.
 */
export async function createRegistration(this: IHookFunctions): Promise<boolean> {
	const data = this.getWorkflowStaticData('node');
	const url = nodeWebhookUrl.call(this);
	const project = readProjectField(this);
	if (!project) {
		const { message, description } = MESSAGES.noProject;
		throw nodeError(this, 'invalid_input', message, { description });
	}
	const projectId = await resolveProjectId.call(this, project);

	// A registration for another URL or project stays valid at the service: keep it for later.
	retireRegistration(data);

	const again = registersAgain.call(this);
	const earlier = takeRetired(data, url, projectId);
	if (earlier && (!again || earlier.registeredAgain === true)) {
		const takenUp: Registration = { ...earlier, projectValue: project };
		if (!again) delete takenUp.registeredAgain;
		data.registration = takenUp;
		return true;
	}

	const secret = generateWebhookSecret();
	// The trigger subscribes to every event the service can deliver: task.completed.
	const events = [...WEBHOOK_EVENTS];
	const response = await registerWebhook
		.call(this, projectId, { url, events, secret })
		.catch((error: unknown) => {
			throw explain(error, webhookRequest(projectId, url));
		});
	const registration: Registration = {
		url,
		projectId,
		projectValue: project,
		secret,
		registeredAt: new Date().toISOString(),
	};
	if (again) registration.registeredAgain = true;
	const webhookId = webhookIdOf(response);
	if (webhookId !== undefined) registration.webhookId = webhookId;
	const kept = withoutSecrets(response);
	if (kept !== undefined) registration.response = kept;
	data.registration = registration;
	return true;
}
