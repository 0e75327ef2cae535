const { src, dest } = require('gulp');

// The TypeScript compiler emits only code: the node icons, the codex files that describe each
// node to n8n's panel (*.node.json) and the output schemas the editor shows before a node has
// run (__schema__/v{version}/{resource}/{operation}.json, next to the node's compiled file) are
// copied into dist/ here, keeping their paths.
function buildAssets() {
	return src(
		[
			'nodes/**/*.{png,svg}',
			'nodes/**/*.node.json',
			'nodes/**/__schema__/**/*.json',
			'credentials/**/*.{png,svg}',
		],
		{ base: '.', encoding: false, allowEmpty: true },
	).pipe(dest('dist'));
}

exports['build:assets'] = buildAssets;
