"""Example documents from the Kubernetes docs, shared by the tests that replay them."""

#: The ``kubectl convert -f v1beta1Deployment.yaml --output-version=apps/v1`` input of the
#: kubectl-convert docs: an
#: apps/v1beta1 Deployment as the Kubernetes 1.7 docs wrote it (no selector, no strategy).
SEED_DEPLOYMENT = b"""\
apiVersion: apps/v1beta1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  replicas: 1
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.7.9
        ports:
        - containerPort: 80
"""
