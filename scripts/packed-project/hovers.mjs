// Run in the scratch project by scripts/check-packed.mjs: what an editor hover shows for values
// read through the packed package's types. Each must be a named interface, not an anonymous object.
import ts from 'typescript';

const file = 'hover-sample.ts';
const program = ts.createProgram([file], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  types: ['node'],
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(file);
const hovers = {};
source.forEachChild((node) => {
  if (!ts.isVariableStatement(node)) return;
  for (const declaration of node.declarationList.declarations) {
    hovers[declaration.name.getText(source)] = checker.typeToString(
      checker.getTypeAtLocation(declaration.name),
    );
  }
});
const expected = {
  reservation: 'Reservation',
  restaurants: 'Restaurant[]',
  profile: 'PartnerProfile',
  webhook: 'Webhook',
  event: 'ReservationEventOf<"RESERVATION_MODIFIED">',
};
for (const [name, type] of Object.entries(expected)) {
  if (hovers[name] !== type) throw new Error(`hover of ${name}: expected ${type}, got ${hovers[name]}`);
}
console.log(`editor hovers name the types: ${Object.values(expected).join(', ')}`);
