import type { Operator } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';

/** Every operator of the catalogue, by code. */
export class ListOperators {
  constructor(private readonly operators: OperatorDirectory) {}

  execute(): Promise<Operator[]> {
    return this.operators.list();
  }
}
