import { Conflict } from '../../common/errors/domain-error';

export class ProductNameTaken extends Conflict {
  constructor(name: string) {
    super(`A product named "${name}" already exists in this space.`, 'product_name_taken');
  }
}
