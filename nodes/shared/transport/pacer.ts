import { createHash } from 'crypto';

import { wait } from '../wait';

/**
 * One pace for the requests of a credential in one n8n process, learnt from 429s as the AWS SDK's
 * adaptive mode does; a Retry-After holds back every request (Octokit).
 */

const MIN_RATE_PER_S = 0.25;
const THROTTLE_CUT = 0.8;
const PLATEAU_SHARE = 0.95;
const PROBE_STEP = 0.01;
const PACE_MEMORY_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;

/** Exponential back-off with jitter for the n-th 429 in a row (from 1) without Retry-After. */
export function throttleBackoffMs(consecutive: number, random = Math.random()): number {
	const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, consecutive - 1));
	return Math.round(base / 2 + (base / 2) * random);
}

export class Pacer {
	/** Requests per second; Infinity while the service has not throttled. */
	rate = Infinity;

	private ceiling = Infinity;
	private nextAt = 0;
	private pausedUntil = 0;
	private lastThrottleAt = -Infinity;
	private lastCutAt = -Infinity;
	private readonly accepted: number[] = [];

	constructor(private readonly now: () => number = Date.now) {}

	earliest(now = this.now()): number {
		if (now - this.lastThrottleAt > PACE_MEMORY_MS) this.rate = this.ceiling = Infinity;
		return Math.max(now, this.pausedUntil, this.nextAt);
	}

	/** Waits until a request may start and takes its place; false at once if after `deadline`. */
	async acquire(signal?: AbortSignal, deadline = Infinity): Promise<boolean> {
		let now = this.now();
		for (;;) {
			const at = this.earliest(now);
			if (at <= now) break;
			if (at > deadline) return false;
			await wait(at - now, signal);
			// A sleep ends no sooner than asked; the clock is taken as at least that far on.
			now = Math.max(this.now(), at);
		}
		if (Number.isFinite(this.rate)) this.nextAt = Math.max(this.nextAt, now) + 1000 / this.rate;
		return true;
	}

	onAccepted(now = this.now()): void {
		this.accepted.push(now);
		this.prune(now);
		if (!Number.isFinite(this.rate)) return;
		const plateau = this.ceiling * PLATEAU_SHARE;
		if (this.rate < plateau) {
			this.rate = Math.min(plateau, this.rate + Math.max(0.05, (plateau - this.rate) / 4));
		} else {
			this.rate *= 1 + PROBE_STEP;
			this.ceiling = Math.max(this.ceiling, this.rate);
		}
	}

	onThrottled(pauseMs: number, now = this.now()): void {
		this.lastThrottleAt = now;
		this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
		if (now - this.lastCutAt < 1000) return;
		this.prune(now);
		// With nothing accepted lately there is no rate to learn from: the pause alone holds.
		if (this.accepted.length === 0) return;
		this.lastCutAt = now;
		const acceptedRate = Math.max(MIN_RATE_PER_S, this.accepted.length);
		this.ceiling = acceptedRate;
		this.rate = Math.max(MIN_RATE_PER_S, Math.min(this.rate, acceptedRate) * THROTTLE_CUT);
		this.nextAt = Math.max(this.nextAt, this.pausedUntil);
	}

	private prune(now: number): void {
		while (this.accepted.length && now - this.accepted[0] >= 1000) this.accepted.shift();
	}
}

const pacers = new Map<string, Pacer>();

export function pacerFor(baseUrl: string, apiKey: unknown): Pacer {
	const key = `${baseUrl}|${createHash('sha256')
		.update(String(apiKey ?? ''))
		.digest('hex')
		.slice(0, 16)}`;
	if (!pacers.has(key)) pacers.set(key, new Pacer());
	return pacers.get(key)!;
}

/** A Retry-After longer than this is shortened to it, so a run never hangs on one header. */
const MAX_RETRY_AFTER_MS = 60_000;

export function parseRetryAfter(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const seconds = Number(value);
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
	if (!Number.isFinite(ms)) return undefined;
	return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
