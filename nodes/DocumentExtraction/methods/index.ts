export * as listSearch from '../../shared/listSearch';
export * as loadOptions from './loadOptions';
