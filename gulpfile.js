const { src, dest } = require('gulp');

// The TypeScript compiler emits only code: the node icons and the codex files that describe
// each node to n8n's panel (*.node.json) are copied into dist/ here, keeping their paths.
function buildAssets() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
		allowEmpty: true,
	}).pipe(dest('dist'));
}

exports['build:assets'] = buildAssets;
