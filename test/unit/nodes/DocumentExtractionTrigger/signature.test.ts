import { verifySignature } from '../../../../nodes/DocumentExtractionTrigger/signature';

// The test vector, computed once outside the code (`openssl dgst -sha256 -hmac <secret>`):
// BODY signed with SECRET, an empty body signed with SECRET, and BODY signed with an empty secret.
const SECRET = 'whsec_' + 'ab'.repeat(32);
const BODY = Buffer.from('{"event":"task.completed","task_id":"t-1","status":"complete"}');
const GOOD = '0b6a5177f16bd033c9646c82ed4627854659898ee8aa6a160149d3ea2e354e6e';
const EMPTY_BODY_SIGNED = '802f7cfe4a60206fbe3c5d88f0048344677d7e6a9fc4b82e2d91253c2f8a6a2f';
const BODY_SIGNED_EMPTY = 'f6d1e0ac4e4702fc4ff5cbaf1ec70dcbeb02c2e8b2daa3bc903049e32ef3c2ee';

describe('verifySignature', () => {
	it('accepts the lowercase hex HMAC-SHA256 of exactly these bytes and this secret', () => {
		expect(verifySignature(BODY, GOOD, SECRET)).toBe(true);
	});

	const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
	const empty = Buffer.alloc(0);
	it.each<[string, Buffer | undefined, unknown, string]>([
		['checked with another secret', BODY, GOOD, 'whsec_other'],
		['a tampered body', Buffer.from(BODY.toString().replace('complete', 'failed')), GOOD, SECRET],
		['the same JSON in other bytes', reserialized, GOOD, SECRET],
		['no header', BODY, undefined, SECRET],
		['an empty header', BODY, '', SECRET],
		['a repeated header', BODY, [GOOD, GOOD], SECRET],
		['a header in an array', BODY, [GOOD], SECRET],
		['a header as bytes', BODY, Buffer.from(GOOD), SECRET],
		['a number', BODY, 42, SECRET],
		['null', BODY, null, SECRET],
		['uppercase hex (the service sends lowercase)', BODY, GOOD.toUpperCase(), SECRET],
		['one character short', BODY, GOOD.slice(0, 63), SECRET],
		['one character long', BODY, GOOD + '0', SECRET],
		['half a digest', BODY, GOOD.slice(0, 32), SECRET],
		['a character that is not hex', BODY, 'g' + GOOD.slice(1), SECRET],
		['a prefix', BODY, `sha256=${GOOD}`, SECRET],
		['an empty body', empty, EMPTY_BODY_SIGNED, SECRET],
		['no body', undefined, GOOD, SECRET],
		['no secret', BODY, BODY_SIGNED_EMPTY, ''],
	])('refuses %s', (_name, body, header, secret) => {
		expect(verifySignature(body, header, secret)).toBe(false);
	});
});
