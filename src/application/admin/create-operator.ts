import { operatorOf, type Operator } from '../../domain/catalogue/operator.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';

/** Creates an operator of the catalogue; `operator-exists` when the code is taken, `invalid-request` naming a bad field. */
export class CreateOperator {
  constructor(private readonly operators: OperatorDirectory) {}

  execute(input: {
    code: string;
    name: string;
    timezone: string;
    confirmation?: string | undefined;
    confirmationWindowMinutes?: number | undefined;
    /** False makes a sandbox operator (`operator create --test`). */
    livemode?: boolean | undefined;
  }): Promise<Operator> {
    return this.operators.create(operatorOf(input));
  }
}
