// Prints the exported interfaces and type aliases of a TypeScript file (default src/api/types.ts) as JSON,
// read with the TypeScript compiler's type checker, for tests/ui/test_types_drift.py:
//   {Name: {prop: {optional: bool, type: "<printed type>", shape: <shape>}}}
// Object types (interfaces, aliases of object types and intersections such as Omit<A, 'x'> & B) list their
// properties, inherited ones included. An alias of anything else (a union of string literals such as
// RunKind, a union of interfaces) has the one entry "$alias". Aliases of literal unions are resolved:
// a property `kind: RunKind` prints as 'pool' | 'net' | 'smb' | 'all'.
// <shape> is the type as a tree: {kind: string|number|boolean|null|unknown}, {kind: literal, value},
// {kind: union, of}, {kind: array, of}, {kind: record, of} (a string index signature),
// {kind: ref, name} (another exported interface of the file) or {kind: object, props} (an inline object).
// Usage: node scripts/export-types.mjs [path/to/types.ts]  (several paths: {path: its exports}, one program)
import { resolve } from 'node:path'
import ts from 'typescript'

const files = (process.argv.length > 2 ? process.argv.slice(2) : ['src/api/types.ts']).map((f) => resolve(f))
for (const file of files.filter((f) => !ts.sys.fileExists(f))) {
  process.stderr.write(`${file}: no such file\n`)
  process.exit(1)
}
// One program for every file named: the compiler's own lib files are read once (most of the time it takes).
const program = ts.createProgram(files, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, skipLibCheck: true })
const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => files.includes(d.file?.fileName))
if (diagnostics.length) {
  process.stderr.write(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => '.', getNewLine: () => '\n' }))
  process.exit(1)
}
const checker = program.getTypeChecker()
let source = null // the file being exported, and its exported interfaces (set per file below)
let interfaces = new Set()
const PRINT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType

function members(type) {
  // A union's members, undefined (an optional property's) left out, false | true read as boolean.
  const parts = (type.flags & ts.TypeFlags.Union ? type.types : [type]).filter((t) => !(t.flags & ts.TypeFlags.Undefined))
  const bools = parts.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral)
  if (bools.length === 2) return [...parts.filter((t) => !bools.includes(t)), checker.getBooleanType()]
  return parts
}

function shape(type) {
  const parts = members(type)
  if (parts.length > 1) return { kind: 'union', of: parts.map(shape) }
  const t = parts[0]
  if (!t) return { kind: 'unknown' }
  const f = t.flags
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: 'unknown' }
  if (f & ts.TypeFlags.String) return { kind: 'string' }
  if (f & ts.TypeFlags.Number) return { kind: 'number' }
  if (f & ts.TypeFlags.Boolean) return { kind: 'boolean' }
  if (f & ts.TypeFlags.Null) return { kind: 'null' }
  if (f & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral)) return { kind: 'literal', value: t.value }
  if (f & ts.TypeFlags.BooleanLiteral) return { kind: 'literal', value: checker.typeToString(t) === 'true' }
  if (checker.isArrayType(t)) return { kind: 'array', of: shape(checker.getTypeArguments(t)[0]) }
  if (t.symbol && interfaces.has(t.symbol.name) && t.symbol.flags & ts.SymbolFlags.Interface) return { kind: 'ref', name: t.symbol.name }
  const index = checker.getIndexInfoOfType(t, ts.IndexKind.String)
  if (index && checker.getPropertiesOfType(t).length === 0) return { kind: 'record', of: shape(index.type) }
  if (f & ts.TypeFlags.Object || f & ts.TypeFlags.Intersection) return { kind: 'object', props: properties(t) }
  return { kind: 'unknown', printed: checker.typeToString(t, undefined, PRINT) }
}

function printed(type) {
  return members(type).map((t) => checker.typeToString(t, undefined, PRINT)).join(' | ')
}

function properties(type) {
  const out = {}
  for (const prop of checker.getPropertiesOfType(type)) {
    const declaration = prop.valueDeclaration ?? prop.declarations?.[0]
    const propType = checker.getTypeOfSymbolAtLocation(prop, declaration ?? source)
    out[prop.name] = { optional: Boolean(prop.flags & ts.SymbolFlags.Optional), type: printed(propType), shape: shape(propType) }
  }
  return out
}

function exportsOf(file) {
  source = program.getSourceFile(file)
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source))
  interfaces = new Set(exported.filter((s) => s.flags & ts.SymbolFlags.Interface).map((s) => s.name))
  const result = {}
  for (const symbol of exported) {
    if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue
    const type = checker.getDeclaredTypeOfSymbol(symbol)
    const isObject = !(type.flags & ts.TypeFlags.Union) && (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))
    result[symbol.name] = isObject ? properties(type) : { $alias: { optional: false, type: printed(type), shape: shape(type) } }
  }
  return result
}

// One file: its exports; several: {file: its exports}, each file as named on the command line.
const result = files.length === 1 && process.argv.length <= 3
  ? exportsOf(files[0])
  : Object.fromEntries(files.map((file, i) => [process.argv[2 + i], exportsOf(file)]))
process.stdout.write(JSON.stringify(result, null, 1) + '\n')
