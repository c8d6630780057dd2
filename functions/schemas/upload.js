// Run-time half of upload.d.ts (the domain imports values from it); a .ts specifier, since this file is not compiled.
export * from '../resources/uploads/request.ts';
