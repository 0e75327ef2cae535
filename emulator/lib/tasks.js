'use strict';

/**
 * Task lifecycle: POST /process_file creates a task, timers move it through the
 * running statuses to `complete` or `failed`, GET /task_status reads it, and the
 * end of a task starts its webhook deliveries. Also GET /projects.
 * Every function takes the shared context `ctx` (lib/context.js) first.
 */

const crypto = require('node:crypto');

const { buildResult, countPages } = require('./fixtures.js');
const { validateProcessFile } = require('./validation.js');
const { sendJson, readJsonOrRespond } = require('./http.js');
const { isCurrent, later, nowIso } = require('./context.js');
const { deliverTaskCompleted } = require('./deliveries.js');

/** A project by project_id or name, case-insensitive. */
function findProject(ctx, ref) {
	const lower = ref.toLowerCase();
	return (
		ctx.state.projects.find((p) => p.project_id.toLowerCase() === lower) ||
		ctx.state.projects.find((p) => p.name.toLowerCase() === lower) ||
		null
	);
}

function findDocumentType(project, name) {
	return (
		project.document_types.find((t) => t === name) ||
		project.document_types.find((t) => t.toLowerCase() === name.toLowerCase()) ||
		null
	);
}

/** The task as GET /task_status answers it. */
function publicTask(task) {
	const out = {
		task_id: task.task_id,
		status: task.status,
		result: task.result,
		created_at: task.created_at,
		updated_at: task.updated_at,
	};
	if (task.status === 'failed') out.error = task.error;
	return out;
}

/** The task with its history, as GET /_emulator/tasks lists it. */
function adminTask(task) {
	return {
		...publicTask(task),
		project_id: task.project_id,
		document_type: task.document_type,
		file_size: task.file_size,
		file_sha256: task.file_sha256,
		max_pages: task.max_pages,
		history: task.history.map((h) => ({ ...h })),
	};
}

function setStatus(ctx, task, status) {
	task.status = status;
	task.updated_at = nowIso();
	task.history.push({ status, at: task.updated_at });
	ctx.log(`task ${task.task_id} -> ${status}`);
}

function finishTask(ctx, task) {
	if (task.willFail) {
		task.error = `Extraction failed: the document could not be read (marker ${ctx.opts.failMarker} found)`;
		task.result = null;
		setStatus(ctx, task, 'failed');
	} else {
		task.result = buildResult({
			documentType: task.document_type,
			projectId: task.project_id,
			fileSize: task.file_size,
			fileSha256: task.file_sha256,
			pages: task.pages,
		});
		setStatus(ctx, task, 'complete');
	}
	deliverTaskCompleted(ctx, task);
}

/** Each running status gets an equal share of processingMs, then the task finishes. */
function scheduleTask(ctx, task) {
	const statuses = ctx.opts.runningStatuses;
	const step = ctx.opts.processingMs / statuses.length;
	const gen = ctx.generation;
	for (let i = 1; i < statuses.length; i++) {
		later(ctx.workTimers, i * step, () => {
			if (isCurrent(ctx, gen)) setStatus(ctx, task, statuses[i]);
		});
	}
	later(ctx.workTimers, ctx.opts.processingMs, () => {
		if (isCurrent(ctx, gen)) finishTask(ctx, task);
	});
}

/** A new task for validated, decoded file bytes; the bytes themselves are not kept. */
function createTask(ctx, project, documentType, file, maxPages) {
	const detectedPages = countPages(file);
	const createdAt = nowIso();
	const status = ctx.opts.runningStatuses[0];
	return {
		task_id: crypto.randomUUID(),
		project_id: project.project_id,
		project_name: project.name,
		document_type: documentType,
		status,
		result: null,
		error: null,
		created_at: createdAt,
		updated_at: createdAt,
		history: [{ status, at: createdAt }],
		file_size: file.length,
		file_sha256: crypto.createHash('sha256').update(file).digest('hex'),
		pages: maxPages ? Math.min(maxPages, detectedPages) : detectedPages,
		max_pages: maxPages,
		willFail: file.indexOf(Buffer.from(ctx.opts.failMarker, 'latin1')) !== -1,
	};
}

async function handleProcessFile(ctx, req, res) {
	const body = await readJsonOrRespond(req, res, ctx.opts.maxBodyBytes);
	if (body.done) return;
	const v = validateProcessFile(body.value);
	body.value = null;
	if (v.errors) {
		sendJson(res, 422, { detail: v.errors });
		return;
	}
	const project = findProject(ctx, v.project);
	if (!project) {
		sendJson(res, 404, { detail: `Project '${v.project}' not found` });
		return;
	}
	const documentType = findDocumentType(project, v.documentType);
	if (!documentType) {
		sendJson(res, 404, { detail: `Document type '${v.documentType}' not found in project '${project.name}'` });
		return;
	}
	const file = v.file;
	v.file = null;
	const task = createTask(ctx, project, documentType, file, v.maxPages);
	ctx.state.tasks.set(task.task_id, task);
	ctx.log(`task ${task.task_id} created (${project.name}/${documentType}, ${task.file_size} bytes)`);
	scheduleTask(ctx, task);
	sendJson(res, 200, { task_id: task.task_id });
}

function handleTaskStatus(ctx, req, res, { taskId }) {
	const task = ctx.state.tasks.get(taskId);
	if (!task) {
		sendJson(res, 404, { detail: `Task '${taskId}' not found` });
		return;
	}
	sendJson(res, 200, publicTask(task));
}

function handleProjects(ctx, req, res) {
	sendJson(res, 200, {
		projects: ctx.state.projects.map((p) => ({
			project_id: p.project_id,
			name: p.name,
			document_types: [...p.document_types],
		})),
	});
}

module.exports = { handleProcessFile, handleTaskStatus, handleProjects, adminTask, publicTask, findProject };
