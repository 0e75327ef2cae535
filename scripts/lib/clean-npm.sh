# Sourced by the scripts that install tools outside the project (bash).
#
# npm hands its configuration to the scripts it runs as npm_config_* variables. Inherited by an
# npm call inside such a script, the project's `ignore-scripts=true` would skip install scripts
# (the one that brings Node's binary among them), and `local_prefix`, `prefix` or `nodedir` would
# point the call elsewhere. clean_npm runs npm with only the settings that say where packages come
# from.
NPM_KEEP=' npm_config_registry npm_config_cache npm_config_userconfig npm_config_globalconfig npm_config_cafile npm_config_ca npm_config_proxy npm_config_https_proxy npm_config_noproxy npm_config_strict_ssl '
clean_npm() {
	local unset_args=() name
	while IFS='=' read -r name _; do
		case "$name" in
		npm_* | NPM_CONFIG_* | INIT_CWD)
			[[ "$NPM_KEEP" == *" $name "* ]] || unset_args+=(-u "$name")
			;;
		esac
	done < <(env)
	env "${unset_args[@]}" npm "$@"
}
