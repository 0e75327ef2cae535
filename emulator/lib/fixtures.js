'use strict';

/**
 * Default projects and the synthetic extraction results the emulator returns.
 * Results are derived from the SHA-256 of the submitted file, so the same file
 * always yields the same result.
 */

const DEFAULT_PROJECTS = Object.freeze([
	Object.freeze({
		project_id: '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c',
		name: 'Invoices',
		document_types: Object.freeze(['invoice', 'receipt']),
	}),
	Object.freeze({
		project_id: '8a4b6c2d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
		name: 'Identity',
		document_types: Object.freeze(['id_card', 'passport']),
	}),
	// a name as users write them: a space, an accent and punctuation
	Object.freeze({
		project_id: 'c7e2d1f0-4b3a-4e5d-9f8a-1b2c3d4e5f60',
		name: 'Invoices EU – Zürich (2025)',
		document_types: Object.freeze(['invoice']),
	}),
]);

const VENDORS = ['Acme Supplies GmbH', 'Northwind Traders', 'Globex Office Ltd', 'Initech Services', 'Umbrella Logistics'];
const MERCHANTS = ['Corner Coffee', 'City Grocers', 'Metro Fuel', 'Bookworm Store', 'Green Pharmacy'];
const PEOPLE = ['Erika Mustermann', 'Jan Jansen', 'Maria Rossi', 'John Smith', 'Anna Kowalska'];
const COUNTRIES = ['DEU', 'NLD', 'ITA', 'GBR', 'POL'];
const CURRENCIES = ['EUR', 'EUR', 'EUR', 'USD', 'GBP'];

/** Deterministic small integers taken from the hex digest. */
function seeded(sha256Hex) {
	let pos = 0;
	return (modulo) => {
		const chunk = sha256Hex.slice(pos % 56, (pos % 56) + 8);
		pos += 8;
		return parseInt(chunk, 16) % modulo;
	};
}

function pad2(n) {
	return String(n).padStart(2, '0');
}

function isoDate(year, month, day) {
	return `${year}-${pad2(month)}-${pad2(day)}`;
}

function money(cents) {
	return Math.round(cents) / 100;
}

/**
 * The fields of an identity document: its holder, its number (`[field, prefix, digits]`) and,
 * with `issuing`, the issuing country (the holder's nationality).
 */
function identityFields(r, month, day, [numberField, prefix, digits], { issuing = false } = {}) {
	const idx = r(PEOPLE.length);
	return {
		full_name: PEOPLE[idx],
		[numberField]: `${prefix}${String(r(10 ** digits)).padStart(digits, '0')}`,
		date_of_birth: isoDate(1960 + r(40), month, day),
		nationality: COUNTRIES[idx],
		...(issuing ? { issuing_country: COUNTRIES[idx] } : {}),
		expiry_date: isoDate(2026 + r(10), month, day),
	};
}

function extractFields(documentType, sha256Hex) {
	const r = seeded(sha256Hex);
	const month = 1 + r(12);
	const day = 1 + r(28);
	switch (documentType) {
		case 'invoice': {
			const subtotal = 1000 + r(250000);
			const tax = Math.round(subtotal * 0.19);
			return {
				invoice_number: `INV-2024-${String(r(100000)).padStart(5, '0')}`,
				invoice_date: isoDate(2024, month, day),
				due_date: isoDate(2024, month === 12 ? 12 : month + 1, day),
				vendor_name: VENDORS[r(VENDORS.length)],
				customer_name: PEOPLE[r(PEOPLE.length)],
				subtotal_amount: money(subtotal),
				tax_amount: money(tax),
				total_amount: money(subtotal + tax),
				currency: CURRENCIES[r(CURRENCIES.length)],
			};
		}
		case 'receipt': {
			const total = 100 + r(20000);
			return {
				merchant_name: MERCHANTS[r(MERCHANTS.length)],
				transaction_date: isoDate(2024, month, day),
				transaction_time: `${pad2(8 + r(12))}:${pad2(r(60))}`,
				total_amount: money(total),
				currency: CURRENCIES[r(CURRENCIES.length)],
				payment_method: ['card', 'cash', 'mobile'][r(3)],
			};
		}
		case 'id_card':
			return identityFields(r, month, day, ['document_number', 'ID', 7]);
		case 'passport':
			return identityFields(r, month, day, ['passport_number', 'P', 8], { issuing: true });
		default:
			return {
				title: `Sample ${documentType}`,
				reference: `REF-${sha256Hex.slice(0, 10).toUpperCase()}`,
				document_date: isoDate(2024, month, day),
			};
	}
}

/** The handful of fields also copied to the top level of a result. */
const TOP_LEVEL = {
	invoice: ['invoice_number', 'invoice_date', 'total_amount', 'currency', 'vendor_name'],
	receipt: ['merchant_name', 'transaction_date', 'total_amount', 'currency'],
	id_card: ['full_name', 'document_number', 'date_of_birth', 'nationality', 'expiry_date'],
	passport: ['full_name', 'passport_number', 'date_of_birth', 'nationality', 'expiry_date'],
};

/**
 * Build the result object of a completed task.
 * @param {{documentType: string, projectId: string, fileSize: number, fileSha256: string, pages: number}} input
 */
function buildResult({ documentType, projectId, fileSize, fileSha256, pages }) {
	const fields = extractFields(documentType, fileSha256);
	const top = {};
	for (const key of TOP_LEVEL[documentType] || Object.keys(fields)) top[key] = fields[key];
	return {
		...top,
		file_size: fileSize,
		file_sha256: fileSha256,
		document_type: documentType,
		project_id: projectId,
		pages,
		fields,
	};
}

/**
 * Count the pages of a PDF (objects of "/Type /Page", not "/Pages") without
 * copying the buffer. Non-PDF files (images) count as one page.
 * @param {Buffer} buf
 */
function countPages(buf) {
	const head = buf.subarray(0, 1024);
	if (head.indexOf('%PDF-') === -1) return 1;
	const TYPE = Buffer.from('/Type');
	const PAGE = Buffer.from('/Page');
	let count = 0;
	let from = 0;
	while (count < 100000) {
		const at = buf.indexOf(TYPE, from);
		if (at === -1) break;
		let i = at + TYPE.length;
		while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
		if (buf.compare(PAGE, 0, PAGE.length, i, i + PAGE.length) === 0) {
			const next = buf[i + PAGE.length];
			const isNameChar =
				next !== undefined &&
				((next >= 0x30 && next <= 0x39) || (next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a));
			if (!isNameChar) count++;
		}
		from = i;
	}
	return Math.max(1, count);
}

module.exports = { DEFAULT_PROJECTS, buildResult, countPages, extractFields };
