/**
 * The defaults and fixed names of the Document Extraction node, in one place: the field
 * descriptions show them and the code that reads the fields falls back to them.
 */

/** Max Concurrent Requests, unless set. */
export const DEFAULT_MAX_CONCURRENCY = 5;

/** Max Download Size (MB) of the URL input source, unless set. */
export const DEFAULT_MAX_DOWNLOAD_MB = 50;

/** Download Timeout (seconds) of the URL input source, unless set. */
export const DEFAULT_DOWNLOAD_TIMEOUT_S = 60;

/** Poll Interval (seconds) of Submit and Wait, unless set, and its least value. */
export const DEFAULT_POLL_INTERVAL_S = 2;
export const MIN_POLL_INTERVAL_S = 1;

/** Max Wait (seconds) of Submit and Wait, unless set. */
export const DEFAULT_MAX_WAIT_S = 600;

/** The name of the option that allows private network addresses, as the node shows it. */
export const ALLOW_PRIVATE_ADDRESSES_OPTION = 'Allow Private Addresses';

/** File Types of Submit and Submit and Wait with several files per item, unless set: PDFs and images. */
export const DEFAULT_FILE_TYPES = 'application/pdf, image/*';
