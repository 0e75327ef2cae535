// The defaults the field descriptions show and the code falls back to.
export const DEFAULT_MAX_CONCURRENCY = 5;
export const DEFAULT_MAX_DOWNLOAD_MB = 50,
	DEFAULT_DOWNLOAD_TIMEOUT_S = 60;
export const DEFAULT_POLL_INTERVAL_S = 2,
	MIN_POLL_INTERVAL_S = 1,
	DEFAULT_MAX_WAIT_S = 600;
export const ALLOW_PRIVATE_ADDRESSES_OPTION = 'Allow Private Addresses';
export const DEFAULT_FILE_TYPES = 'application/pdf, image/*';
