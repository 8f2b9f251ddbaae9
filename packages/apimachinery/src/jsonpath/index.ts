export * from './parser.js';
export * from './evaluate.js';
export * from './printer-column.js';
export { formatGoFloat, goJsonMarshal } from './values.js';
