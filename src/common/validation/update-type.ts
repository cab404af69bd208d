import { Type } from '@nestjs/common';
import { PartialType, PickType } from '@nestjs/swagger';

/**
 * The update twin of create fields: the picked fields of `create`, each optional, validated and
 * documented as on create. A field left out is skipped, but null is still validated, so null stays
 * refused where create refuses it (PartialType's default `IsOptional` would let null through).
 * See docs/decisions.md#update-bodies.
 */
export function UpdateType<T, K extends keyof T>(
  create: Type<T>,
  keys: readonly K[],
): Type<Partial<Pick<T, K>>> {
  return PartialType(PickType(create, keys), { skipNullProperties: false });
}
