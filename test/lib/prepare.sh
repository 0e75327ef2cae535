# Sourced by test/e2e/run.sh and test/queue/run.sh.  prepare_suite PREFIX [--npm-install-fallback]:
# npm ci when node_modules is missing (then npm install --no-save with the fallback), the runtime
# (scripts/ensure-runtime.sh; exits 1 without it), the build (not with E2E_BUILT=1: both.sh builds
# once for two suites), and exports NODE24, N8N_DIR and N8N_BIN.

prepare_suite() {
	local prefix="$1" fallback="${2:-}" runtime
	if [ ! -d node_modules ]; then
		echo "[$prefix] installing development dependencies (npm ci)" >&2
		if [ "$fallback" = --npm-install-fallback ]; then
			npm ci --no-audit --no-fund || {
				echo "[$prefix] npm ci failed (is package-lock.json in sync with package.json?); trying npm install --no-save" >&2
				npm install --no-audit --no-fund --no-save
			}
		else
			npm ci --no-audit --no-fund
		fi
	fi
	# the installer says in one line what failed and what to do
	runtime="$(bash scripts/ensure-runtime.sh)" || exit 1
	eval "$runtime"
	if [ "${E2E_BUILT:-}" = 1 ]; then
		echo "[$prefix] the package is built already (E2E_BUILT=1)" >&2
	else
		echo "[$prefix] building the package" >&2
		npm run build --silent >&2
	fi

	export NODE24 N8N_DIR N8N_BIN
}
