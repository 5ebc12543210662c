// Prettier wraps code at the print width but leaves template literals alone: this finds the lines of markup
// (template literals holding HTML, CSS or SVG) in src/ that run past the same width, prints file:line of each
// and exits 1 when there is one. `npm run markup:width` runs it alone; `npm run format:check` (in `npm test`)
// runs it after Prettier.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const width = JSON.parse(readFileSync(path.join(root, '.prettierrc.json'), 'utf8')).printWidth;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

/** An HTML or SVG tag, or a CSS rule (`selector{property:value}`). */
const MARKUP = /<\/?[a-zA-Z][\w-]*[\s>/]|[\w\])-]\s*\{[^{}]*:[^{}]*\}/;
const long = [];
for (const file of files(path.join(root, 'src'))) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = new Set();
  const visit = (node) => {
    if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const literal = node.getText();
      if (MARKUP.test(literal)) for (let line = start; line <= end; line++) lines.add(line);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const all = text.split('\n');
  for (const line of [...lines].sort((a, b) => a - b)) {
    if (all[line].length > width) long.push(`${path.relative(root, file)}:${line + 1}: ${all[line].length} characters`);
  }
}
if (long.length > 0) {
  const how = 'break them between tags or attributes, or name a long ${…} expression above the template';
  console.error(`markup lines over the print width (${width}): ${how}\n${long.join('\n')}`);
  process.exit(1);
}
