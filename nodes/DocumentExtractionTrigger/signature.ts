import { createHmac, timingSafeEqual } from 'crypto';

export const SIGNATURE_HEADER = 'x-service-signature';

const LOWERCASE_HEX_SHA256 = /^[0-9a-f]{64}$/;

/** The service signs the raw bytes with a lowercase hex HMAC-SHA256; compared in constant time. */
export function verifySignature(
	rawBody: Buffer | undefined,
	header: unknown,
	secret: string,
): boolean {
	if (typeof secret !== 'string' || secret === '') return false;
	if (!Buffer.isBuffer(rawBody) || rawBody.length === 0) return false;
	if (typeof header !== 'string') return false;
	const given = header.trim();
	if (!LOWERCASE_HEX_SHA256.test(given)) return false;

	const expected = createHmac('sha256', secret).update(rawBody).digest();
	const received = Buffer.from(given, 'hex');
	if (expected.length !== received.length) return false;
	return timingSafeEqual(expected, received);
}
