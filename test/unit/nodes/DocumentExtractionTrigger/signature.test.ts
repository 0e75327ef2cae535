import { createHmac } from 'node:crypto';

import { verifySignature } from '../../../../nodes/DocumentExtractionTrigger/signature';

const SECRET = 'whsec_' + 'ab'.repeat(32);
const BODY = Buffer.from('{"event":"task.completed","task_id":"t-1","status":"complete"}');
// Computed independently of the code under test.
const GOOD = createHmac('sha256', SECRET).update(BODY).digest('hex');

describe('verifySignature', () => {
	it('accepts the signature of exactly these bytes and this secret', () => {
		expect(verifySignature(BODY, GOOD, SECRET)).toBe(true);
	});

	it('refuses a signature made with another secret', () => {
		const other = createHmac('sha256', 'whsec_other').update(BODY).digest('hex');
		expect(verifySignature(BODY, other, SECRET)).toBe(false);
		expect(verifySignature(BODY, GOOD, 'whsec_other')).toBe(false);
	});

	it('refuses a tampered body, even one that parses to the same JSON', () => {
		const tampered = Buffer.from(BODY.toString().replace('complete', 'failed'));
		expect(verifySignature(tampered, GOOD, SECRET)).toBe(false);
		const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
		expect(verifySignature(reserialized, GOOD, SECRET)).toBe(false);
	});

	it('refuses a missing header', () => {
		expect(verifySignature(BODY, undefined, SECRET)).toBe(false);
		expect(verifySignature(BODY, '', SECRET)).toBe(false);
	});

	it('refuses a header that is not a string', () => {
		expect(verifySignature(BODY, [GOOD], SECRET)).toBe(false);
		expect(verifySignature(BODY, [GOOD, GOOD], SECRET)).toBe(false);
		expect(verifySignature(BODY, Buffer.from(GOOD), SECRET)).toBe(false);
		expect(verifySignature(BODY, 42, SECRET)).toBe(false);
		expect(verifySignature(BODY, null, SECRET)).toBe(false);
	});

	it('refuses uppercase hex, since the service sends lowercase', () => {
		expect(GOOD).toMatch(/[a-f]/);
		expect(verifySignature(BODY, GOOD.toUpperCase(), SECRET)).toBe(false);
	});

	it('refuses a wrong length and non-hex characters', () => {
		expect(verifySignature(BODY, GOOD.slice(0, 63), SECRET)).toBe(false);
		expect(verifySignature(BODY, GOOD + '0', SECRET)).toBe(false);
		expect(verifySignature(BODY, GOOD.slice(0, 32), SECRET)).toBe(false);
		expect(verifySignature(BODY, 'g' + GOOD.slice(1), SECRET)).toBe(false);
		expect(verifySignature(BODY, `sha256=${GOOD}`, SECRET)).toBe(false);
	});

	it('refuses an empty or missing body', () => {
		const empty = Buffer.alloc(0);
		const signedEmpty = createHmac('sha256', SECRET).update(empty).digest('hex');
		expect(verifySignature(empty, signedEmpty, SECRET)).toBe(false);
		expect(verifySignature(undefined, GOOD, SECRET)).toBe(false);
	});

	it('refuses everything when there is no secret', () => {
		const signedWithEmptyKey = createHmac('sha256', '').update(BODY).digest('hex');
		expect(verifySignature(BODY, signedWithEmptyKey, '')).toBe(false);
	});
});
