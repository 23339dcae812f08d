export {
  R2SkillProvider,
  type R2BucketLike,
  type R2ListOptionsLike,
  type R2ObjectLike,
  type R2ObjectsLike,
  type R2SkillProviderOptions,
} from "./r2-skill-provider.js";
