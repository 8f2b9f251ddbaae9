// Sets the manager image in config/manager (kubebuilder's `kustomize edit set image controller=$IMG`).
import { readFileSync, writeFileSync } from 'node:fs';

const img = process.env.IMG ?? 'controller:latest';
const at = img.lastIndexOf(':') > img.lastIndexOf('/') ? img.lastIndexOf(':') : -1;
const [newName, newTag] = at < 0 ? [img, 'latest'] : [img.slice(0, at), img.slice(at + 1)];
const file = 'config/manager/kustomization.yaml';
const text = readFileSync(file, 'utf8');
const images = `images:\n- name: controller\n  newName: ${newName}\n  newTag: ${newTag}\n`;
writeFileSync(file, /^images:\n(?:[- ].*\n?)*/m.test(text) ? text.replace(/^images:\n(?:[- ].*\n?)*/m, images) : `${text.trimEnd()}\n${images}`);
console.log(`${file}: controller image ${newName}:${newTag}`);
