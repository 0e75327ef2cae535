/**
 * The defaults and fixed names of the Document Extraction node, in one place: the field
 * descriptions show them and the code that reads the fields falls back to them.
 */

/** Max Concurrent Requests, unless set. */
export const DEFAULT_MAX_CONCURRENCY = 5;

/** The URL input source's limits, unless set: Max Download Size (MB) and Download Timeout (seconds). */
export const DEFAULT_MAX_DOWNLOAD_MB = 50,
	DEFAULT_DOWNLOAD_TIMEOUT_S = 60;

/** Submit and Wait's Poll Interval (seconds) unless set, and its least value; Max Wait (seconds) unless set. */
export const DEFAULT_POLL_INTERVAL_S = 2,
	MIN_POLL_INTERVAL_S = 1,
	DEFAULT_MAX_WAIT_S = 600;

/** The name of the option that allows private network addresses, as the node shows it. */
export const ALLOW_PRIVATE_ADDRESSES_OPTION = 'Allow Private Addresses';

/** File Types of Submit and Submit and Wait with several files per item, unless set: PDFs and images. */
export const DEFAULT_FILE_TYPES = 'application/pdf, image/*';
