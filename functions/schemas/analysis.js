// Run-time half of analysis.d.ts (the domain imports values from it); a .ts specifier, since this file is not compiled.
export * from '../resources/analyses/request.ts';
