import { createHmac } from 'node:crypto';

import { verifySignature } from '../../../../nodes/DocumentExtractionTrigger/signature';

const SECRET = 'whsec_' + 'ab'.repeat(32);
const BODY = Buffer.from('{"event":"task.completed","task_id":"t-1","status":"complete"}');
// Computed independently of the code under test.
const sign = (body: Buffer, secret = SECRET) =>
	createHmac('sha256', secret).update(body).digest('hex');
const GOOD = sign(BODY);

describe('verifySignature', () => {
	it('accepts the lowercase hex HMAC-SHA256 of exactly these bytes and this secret', () => {
		expect(GOOD).toMatch(/[a-f]/);
		expect(verifySignature(BODY, GOOD, SECRET)).toBe(true);
	});

	const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
	const empty = Buffer.alloc(0);
	it.each<[string, Buffer | undefined, unknown, string]>([
		['signed with another secret', BODY, sign(BODY, 'whsec_other'), SECRET],
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
		['an empty body', empty, sign(empty), SECRET],
		['no body', undefined, GOOD, SECRET],
		['no secret', BODY, sign(BODY, ''), ''],
	])('refuses %s', (_name, body, header, secret) => {
		expect(verifySignature(body, header, secret)).toBe(false);
	});
});
