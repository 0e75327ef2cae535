'use strict';

/**
 * Emails into the mailbox of mailbox.sh: MIME bodies, delivered with Dovecot's own delivery program
 * as a mail server delivers (an IMAP APPEND would mark them seen before n8n reads them). Used by
 * the mailbox scenario and the e2e case Inbox.
 */

const { execFileSync } = require('node:child_process');
const path = require('node:path');

const LDA = '/usr/lib/dovecot/dovecot-lda';

const b64 = (buffer) =>
	buffer
		.toString('base64')
		.replace(/.{1,76}/g, '$&\r\n')
		.trimEnd();

/** A MIME part: a leaf (`type`, `bytes` or `text`, `headers`) or a multipart (`parts`). */
function mime(part, depth = 0) {
	if (part.parts) {
		const boundary = `b${depth}-${Math.random().toString(36).slice(2)}`;
		return [
			`Content-Type: multipart/${part.multipart}; boundary="${boundary}"`,
			'',
			...part.parts.flatMap((child) => [`--${boundary}`, mime(child, depth + 1)]),
			`--${boundary}--`,
		].join('\r\n');
	}
	const body = part.text !== undefined ? part.text : b64(part.bytes);
	return [
		`Content-Type: ${part.type}`,
		...(part.headers ?? []),
		...(part.text !== undefined ? [] : ['Content-Transfer-Encoding: base64']),
		'',
		body,
	].join('\r\n');
}

const text = (t) => ({ type: 'text/plain; charset=utf-8', text: t });
const attachment = (name, type, content) => ({
	type: `${type}; name="${name}"`,
	headers: [`Content-Disposition: attachment; filename="${name}"`],
	bytes: content,
});
const mixed = (...parts) => ({ multipart: 'mixed', parts });

/** Delivers an email (`from`, `subject`, `date`, `id`, MIME `body`) to `user` of the mailbox in `dir`. */
function deliverMail(dir, user, { from, subject, date = new Date(), id, body }) {
	const message = [
		`From: ${from}`,
		`To: Invoices <${user}@example.test>`,
		`Subject: ${subject}`,
		`Date: ${date.toUTCString()}`,
		`Message-ID: <${id}>`,
		'MIME-Version: 1.0',
		mime(body),
		'',
	].join('\r\n');
	execFileSync(LDA, ['-c', path.join(dir, 'dovecot.conf'), '-d', user], { input: message });
}

module.exports = { attachment, deliverMail, mixed, text };
