'use strict';

/** The report of row P4: its rows in the summary table and its section of the results. */

const path = require('node:path');
const {
	LAZY_ENV_TEXT,
	NAMES,
	SERVICE_LIMIT_MS,
	TARGET_SLOWEST_MS,
	TARGET_RATIO,
} = require('./trigger-load.js');

// -------------------------------------------------------------------- report

const s = (ms) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
const msf = (ms) => (ms === undefined ? 'n/a' : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
const yes = (ok) => (ok ? '**yes**' : '**NO**');

const meetsTarget = (r) =>
	r.ratioAllAnswered <= TARGET_RATIO && r.ratioSlowest <= TARGET_RATIO && r.trigger.slowestMs <= TARGET_SLOWEST_MS;

function summaryRows(p4) {
	const r = p4.regular;
	const rows = [];
	const met = meetsTarget(r);
	rows.push(
		`| P4 trigger vs Webhook node, ${p4.opts.deliveries} signed deliveries, ${p4.opts.concurrency} in flight (regular mode, median of ${r.rounds.length}) | all answered ${s(r.trigger.allAnsweredMs)} vs ${s(r.webhook.allAnsweredMs)} = **${r.ratioAllAnswered.toFixed(2)}×**; slowest ${s(r.trigger.slowestMs)} vs ${s(r.webhook.slowestMs)} = **${r.ratioSlowest.toFixed(2)}×**; lost ${r.trigger.lost}, duplicated ${r.trigger.duplicated} | ratio ≤ ${TARGET_RATIO}, slowest ≤ ${s(TARGET_SLOWEST_MS)} | ${yes(met)} |`,
	);
	if (r.lazy) {
		const l = r.lazy;
		rows.push(
			`| P4 the same with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\`, median of ${l.rounds.length}) | all answered ${s(l.trigger.allAnsweredMs)} vs ${s(l.webhook.allAnsweredMs)} = **${l.ratioAllAnswered.toFixed(2)}×**; slowest ${s(l.trigger.slowestMs)} vs ${s(l.webhook.slowestMs)} = **${l.ratioSlowest.toFixed(2)}×**; n8n CPU per delivery ${msf(l.trigger.cpuAnsweredMs / p4.opts.deliveries)} vs ${msf(l.webhook.cpuAnsweredMs / p4.opts.deliveries)}; lost ${l.trigger.lost}, duplicated ${l.trigger.duplicated} | ratio ≤ ${TARGET_RATIO}, slowest ≤ ${s(TARGET_SLOWEST_MS)} | ${yes(meetsTarget(l))} |`,
		);
	}
	if (p4.queue) {
		const q = p4.queue;
		rows.push(
			`| P4 queue mode (webhook process + 2 workers, median of ${q.rounds.length}) | all answered ${s(q.trigger.allAnsweredMs)} vs ${s(q.webhook.allAnsweredMs)} = ${q.ratioAllAnswered.toFixed(2)}×; slowest ${s(q.trigger.slowestMs)} vs ${s(q.webhook.slowestMs)} = ${q.ratioSlowest.toFixed(2)}×; lost ${q.trigger.lost}, duplicated ${q.trigger.duplicated} | (informative) | |`,
		);
		if (q.lazy) {
			const l = q.lazy;
			rows.push(
				`| P4 queue mode with n8n's lazy isolate setting (median of ${l.rounds.length}) | all answered ${s(l.trigger.allAnsweredMs)} vs ${s(l.webhook.allAnsweredMs)} = ${l.ratioAllAnswered.toFixed(2)}×; slowest ${s(l.trigger.slowestMs)} vs ${s(l.webhook.slowestMs)} = ${l.ratioSlowest.toFixed(2)}×; webhook process CPU per delivery ${msf(l.trigger.cpuAnsweredMs / p4.opts.deliveries)} vs ${msf(l.webhook.cpuAnsweredMs / p4.opts.deliveries)}; lost ${l.trigger.lost}, duplicated ${l.trigger.duplicated} | (informative) | |`,
			);
		}
	} else if (p4.queueError) {
		rows.push(`| P4 queue mode | failed: ${p4.queueError.replace(/\|/g, '/')} | (informative) | |`);
	}
	return rows;
}

function modeTable(out, name, m, opts) {
	out(`### ${name}`);
	out();
	out(`| | ${NAMES.trigger} | ${NAMES.webhook} | Trigger ÷ Webhook |`);
	out('|---|---|---|---|');
	const row = (label, key, fmt = s, ratio = true) =>
		out(`| ${label} | ${fmt(m.trigger[key])} | ${fmt(m.webhook[key])} | ${ratio && m.webhook[key] ? `${(m.trigger[key] / m.webhook[key]).toFixed(2)}×` : ''} |`);
	row(`All ${opts.deliveries} answered (median)`, 'allAnsweredMs');
	row('Slowest answer (median)', 'slowestMs');
	out(`| Answer time p50 / p95 (median) | ${s(m.trigger.p50Ms)} / ${s(m.trigger.p95Ms)} | ${s(m.webhook.p50Ms)} / ${s(m.webhook.p95Ms)} | |`);
	row('All runs finished (median, from the first delivery)', 'runsDoneMs');
	row('n8n CPU per delivery while answering (median)', 'cpuAnsweredMs', (v) => (v === undefined ? 'n/a' : msf(v / opts.deliveries)));
	row('n8n CPU per delivery incl. the runs (median)', 'cpuTotalMs', (v) => (v === undefined ? 'n/a' : msf(v / opts.deliveries)));
	row('Answers not 2xx (all rounds)', 'non2xx', String, false);
	row(`Answers slower than ${SERVICE_LIMIT_MS / 1000} s (service re-sends; all rounds)`, 'over10s', String, false);
	row('Lost: 2xx but no run (all rounds)', 'lost', String, false);
	row('Duplicated runs (all rounds)', 'duplicated', String, false);
	row('Runs not successful (all rounds)', 'failedRuns', String, false);
	out();
	out('Per round (order swapped every round):');
	out();
	out('| Round | Order | Trigger: all answered / slowest | Webhook: all answered / slowest | Ratio all answered / slowest |');
	out('|---|---|---|---|---|');
	m.rounds.forEach((r, i) => {
		out(
			`| ${i + 1} | ${r.order.map((k) => (k === 'trigger' ? 'trigger' : 'webhook')).join(' → ')} | ${s(r.trigger.allAnsweredMs)} / ${s(r.trigger.slowestMs)} | ${s(r.webhook.allAnsweredMs)} / ${s(r.webhook.slowestMs)} | ${m.roundRatios[i].allAnswered.toFixed(2)}× / ${m.roundRatios[i].slowest.toFixed(2)}× |`,
		);
	});
	out();
}

let lines;

/** The P4 section of bench/results.md (starts with "## P4"). */
function section(p4) {
	lines = [];
	const out = (line = '') => lines.push(line);
	const o = p4.opts;
	out('## P4: the trigger under load, against n8n\'s Webhook node');
	out();
	out(
		`A real n8n (${process.env.N8N_DIR ? path.basename(process.env.N8N_DIR) : 'n8n'}, the packed package installed as a community package) with two published workflows: Document Extraction Trigger → No Op, and Webhook (POST, respond immediately) → No Op. Each gets the same burst: ${o.deliveries} distinct, correctly signed task.completed deliveries, ${o.concurrency} in flight, each on a new connection from 127.0.0.1. The bursts alternate (order swapped every round); figures are medians over the rounds. Runs are counted per task_id from n8n's execution records once all have finished. CPU is the n8n process's (in queue mode: the webhook process's) utime + stime over the burst. ${o.ref ? `Package built from commit ${o.commit} (\`BENCH_P4_REF=${o.ref}\`). ` : `Package: dist/ of commit ${o.commit}. `}The client, n8n and (in queue mode) PostgreSQL, Redis and the workers share the machine's CPUs; other work on the machine adds noise.${Object.keys(o.extraEnv).length ? ` n8n environment for this run: \`${Object.entries(o.extraEnv).map(([k, v]) => `${k}=${v}`).join(' ')}\`.` : ''}`,
	);
	out();
	out(`Target: trigger ÷ Webhook node ≤ ${TARGET_RATIO} for both figures, and no answer slower than ${s(TARGET_SLOWEST_MS)} (the service re-sends a delivery without a 2xx within ${SERVICE_LIMIT_MS / 1000} s).`);
	out();
	modeTable(out, `Regular mode (one n8n process, SQLite), ${p4.regular.rounds.length} round(s)`, p4.regular, o);
	if (p4.regular.lazy) {
		modeTable(
			out,
			`Regular mode with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\`), ${p4.regular.lazy.rounds.length} round(s)`,
			p4.regular.lazy,
			o,
		);
	}
	if (p4.queue) {
		modeTable(out, `Queue mode (deliveries to the webhook process; main, 2 workers, PostgreSQL, Redis), ${p4.queue.rounds.length} round(s)`, p4.queue, o);
		out(`Queue stack start-up (PostgreSQL, Redis, imports, main, workers, webhook process): ${s(p4.queue.startupMs)}. Runs per worker over the whole variant: ${Object.entries(p4.queue.perProcess).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
		out();
		if (p4.queue.lazy) {
			modeTable(
				out,
				`Queue mode with n8n's lazy isolate setting (\`${LAZY_ENV_TEXT}\` on every process), ${p4.queue.lazy.rounds.length} round(s)`,
				p4.queue.lazy,
				o,
			);
		}
	} else if (p4.queueError) {
		out(`Queue mode: the variant failed: ${p4.queueError}`);
		out();
	}
	return lines.join('\n');
}

module.exports = { summaryRows, section };
