import { createHmac, timingSafeEqual } from 'crypto';

/** The header that carries the signature of a webhook delivery. */
export const SIGNATURE_HEADER = 'x-service-signature';

/** A SHA-256 digest written as lowercase hex: exactly 64 characters. */
const LOWERCASE_HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Checks the X-Service-Signature of a delivery against the raw request bytes.
 *
 * True only for a lowercase hex HMAC-SHA256 of exactly these bytes keyed with `secret`.
 * A missing, repeated, non-string, malformed (uppercase, wrong length, non-hex) header,
 * an empty body or an empty secret is false. The digests are compared in constant time.
 */
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

	// the value the service sends: the lowercase hex HMAC-SHA256 of the bytes, keyed with the secret
	const expected = createHmac('sha256', secret).update(rawBody).digest();
	const received = Buffer.from(given, 'hex');
	if (expected.length !== received.length) return false;
	return timingSafeEqual(expected, received);
}
